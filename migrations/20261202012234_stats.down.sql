-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` DROP INDEX `usercouponarchive_template_id_status_updated_at`, DROP INDEX `usercouponarchive_template_id_created_at`;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_template_id_status_updated_at`, DROP INDEX `usercoupon_template_id_created_at`;
-- reverse: modify "template_daily_stats" table
ALTER TABLE `template_daily_stats` DROP INDEX `templatedailystats_sealed_day`, DROP COLUMN `sealed`, DROP COLUMN `refunded_discount`, DROP COLUMN `refunded`, DROP COLUMN `issued_distribution`;
-- reverse: modify "coupon_settlement" table
ALTER TABLE `coupon_settlement` DROP INDEX `couponsettlement_template_id_refunded_at`, DROP INDEX `couponsettlement_template_id_paid_at`;
