-- reverse: create "archive_due" table
DROP TABLE `archive_due`;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` ADD INDEX `usercoupon_status_updated_at` (`status`, `updated_at`);
