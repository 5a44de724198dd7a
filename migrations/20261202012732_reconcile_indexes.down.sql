-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` DROP INDEX `usercouponarchive_template_id_user_id`;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_template_id_user_id`;
-- reverse: modify "redemption_failure" table
ALTER TABLE `redemption_failure` DROP INDEX `redemptionfailure_template_id`;
-- reverse: modify "coupon_template_log" table
ALTER TABLE `coupon_template_log` DROP INDEX `coupontemplatelog_shop_number_template_id_id`, ADD INDEX `coupontemplatelog_shop_number_template_id_created_at` (`shop_number`, `template_id`, `created_at`);
