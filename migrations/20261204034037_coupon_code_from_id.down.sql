-- The column and its unique index come back where they were, filled with fresh random codes
-- (64 random bits as 16 hex digits: the derived codes need the key, which SQL does not have), so
-- a coupon shows another code after going down; NULL first, then NOT NULL once every row has one.
-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` ADD COLUMN `code` varchar(32) NULL AFTER `redemption_id`, LOCK=NONE;
UPDATE `user_coupon_archive` SET `code` = HEX(RANDOM_BYTES(8));
ALTER TABLE `user_coupon_archive` MODIFY COLUMN `code` varchar(32) NOT NULL, LOCK=NONE;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` ADD COLUMN `code` varchar(32) NULL AFTER `redemption_id`, LOCK=NONE;
UPDATE `user_coupon` SET `code` = HEX(RANDOM_BYTES(8));
ALTER TABLE `user_coupon` MODIFY COLUMN `code` varchar(32) NOT NULL, ADD UNIQUE INDEX `usercoupon_code` (`code`), LOCK=NONE;
