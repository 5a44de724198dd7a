-- modify "user_coupon" table
ALTER TABLE `user_coupon` ADD INDEX `usercoupon_status_updated_at` (`status`, `updated_at`);
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` ADD INDEX `usercouponarchive_user_id` (`user_id`);
