-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` ADD INDEX `usercouponarchive_template_id_created_at` (`template_id`, `created_at`);
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` ADD INDEX `usercoupon_template_id_created_at` (`template_id`, `created_at`);
