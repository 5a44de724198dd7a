-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` DROP INDEX `usercouponarchive_user_id`;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_status_updated_at`;
