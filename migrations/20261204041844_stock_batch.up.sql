-- modify "coupon_template" table
ALTER TABLE `coupon_template` ADD COLUMN `issued` bigint NOT NULL DEFAULT 0, ADD COLUMN `batch_seq` bigint NOT NULL DEFAULT 0, ALGORITHM=INSTANT;
-- modify "user_coupon" table
ALTER TABLE `user_coupon` ADD COLUMN `stock_batch_id` bigint NULL, ALGORITHM=INSTANT;
-- (an index drop changes no row: in place, claims go on meanwhile)
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_template_id_user_id`, ALGORITHM=INPLACE, LOCK=NONE;
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` ADD COLUMN `stock_batch_id` bigint NULL, ALGORITHM=INSTANT;
-- create "stock_batch" table
CREATE TABLE `stock_batch` (`id` bigint NOT NULL AUTO_INCREMENT, `shop_number` bigint NOT NULL, `template_id` bigint NOT NULL, `seq` bigint NOT NULL, `source` enum('CLAIM','DISTRIBUTION') NOT NULL, `task_id` bigint NULL, `task_start` bigint NULL, `reserved` bigint NOT NULL, `used` bigint NOT NULL DEFAULT 0, `state` enum('OPEN','SETTLED') NOT NULL DEFAULT 'OPEN', `items` mediumtext NOT NULL, `created_at` datetime(3) NOT NULL, `settled_at` datetime(3) NULL, PRIMARY KEY (`id`), INDEX `stockbatch_state_created_at` (`state`, `created_at`), INDEX `stockbatch_task_id_task_start` (`task_id`, `task_start`), INDEX `stockbatch_template_id_seq` (`template_id`, `seq`), INDEX `stockbatch_template_id_state` (`template_id`, `state`)) CHARSET utf8mb4 COLLATE utf8mb4_bin;
-- backfill: before reservation batches every coupon's unit left the stock in the transaction
-- that wrote the coupon, so each template's issued coupons are exactly total_stock - stock
UPDATE `coupon_template` SET `issued` = `total_stock` - `stock`;
