-- reverse: create "stock_batch" table
DROP TABLE `stock_batch`;
-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` DROP COLUMN `stock_batch_id`;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` ADD INDEX `usercoupon_template_id_user_id` (`template_id`, `user_id`), DROP COLUMN `stock_batch_id`;
-- reverse: modify "coupon_template" table
ALTER TABLE `coupon_template` DROP COLUMN `batch_seq`, DROP COLUMN `issued`;
