-- reverse: modify "coupon_settlement" table
ALTER TABLE `coupon_settlement` DROP INDEX `couponsettlement_user_id_order_id_live_slot`, DROP INDEX `couponsettlement_user_id_live_coupon_id`, DROP INDEX `couponsettlement_updated_at`, DROP INDEX `couponsettlement_status_lock_expires_at`, DROP COLUMN `refunded_at`, DROP COLUMN `paid_at`, DROP COLUMN `live_slot`, DROP COLUMN `live_coupon_id`;
