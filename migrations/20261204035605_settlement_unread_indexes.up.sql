-- Two indexes no query of coupon_settlement reads: EXPLAIN of each of its queries (checkout,
-- sweep, stats, archive) on 200,000 rows picks neither, and the plans are the same without them.
-- LOCK=NONE: online or refused.
-- modify "coupon_settlement" table
ALTER TABLE `coupon_settlement` DROP INDEX `couponsettlement_template_id_refunded_at`, DROP INDEX `couponsettlement_updated_at`, LOCK=NONE;
