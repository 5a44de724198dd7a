-- modify "user_coupon" table
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_template_id_created_at`;
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` DROP INDEX `usercouponarchive_template_id_created_at`;
