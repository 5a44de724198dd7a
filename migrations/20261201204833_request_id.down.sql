-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` DROP COLUMN `request_id`;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_user_id_template_id_request_id`, DROP COLUMN `request_id`;
-- reverse: modify "redemption_failure" table
ALTER TABLE `redemption_failure` DROP COLUMN `duplicate_of`;
