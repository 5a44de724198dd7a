-- Adding AUTO_INCREMENT back copies the table (no server does it in place).
-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` MODIFY COLUMN `id` bigint NOT NULL AUTO_INCREMENT;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` MODIFY COLUMN `id` bigint NOT NULL AUTO_INCREMENT;
