-- modify "coupon_template_log" table
ALTER TABLE `coupon_template_log` DROP INDEX `coupontemplatelog_shop_number_template_id_created_at`, ADD INDEX `coupontemplatelog_shop_number_template_id_id` (`shop_number`, `template_id`, `id`);
-- modify "redemption_failure" table
ALTER TABLE `redemption_failure` ADD INDEX `redemptionfailure_template_id` (`template_id`);
-- modify "user_coupon" table
ALTER TABLE `user_coupon` ADD INDEX `usercoupon_template_id_user_id` (`template_id`, `user_id`);
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` ADD INDEX `usercouponarchive_template_id_user_id` (`template_id`, `user_id`);
