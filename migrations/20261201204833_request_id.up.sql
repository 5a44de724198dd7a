-- modify "redemption_failure" table
ALTER TABLE `redemption_failure` ADD COLUMN `duplicate_of` varchar(64) NULL;
-- modify "user_coupon" table
ALTER TABLE `user_coupon` ADD COLUMN `request_id` varchar(64) NULL, ADD UNIQUE INDEX `usercoupon_user_id_template_id_request_id` (`user_id`, `template_id`, `request_id`);
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` ADD COLUMN `request_id` varchar(64) NULL;
