-- create "issued_ledger" table
CREATE TABLE `issued_ledger` (`id` bigint NOT NULL AUTO_INCREMENT, `shop_number` bigint NOT NULL, `template_id` bigint NOT NULL, `bucket` datetime NOT NULL, `source` enum('CLAIM','DISTRIBUTION') NOT NULL, `n` bigint NOT NULL, PRIMARY KEY (`id`), UNIQUE INDEX `issuedledger_template_id_bucket_source` (`template_id`, `bucket`, `source`)) CHARSET utf8mb4 COLLATE utf8mb4_bin;
-- create "expired_ledger" table
CREATE TABLE `expired_ledger` (`id` bigint NOT NULL AUTO_INCREMENT, `user_id` bigint NOT NULL, `template_id` bigint NOT NULL, `bucket` datetime NOT NULL, `n` bigint NOT NULL, PRIMARY KEY (`id`), UNIQUE INDEX `expiredledger_template_id_bucket_user_id` (`template_id`, `bucket`, `user_id`)) CHARSET utf8mb4 COLLATE utf8mb4_bin;
-- backfill (hand-written): the coupons that exist, live and archived, by the UTC quarter hour of
-- their created_at and their source (what coupon/stats counted for a day from the rows), on their
-- template's shop...
INSERT INTO `issued_ledger` (`shop_number`, `template_id`, `bucket`, `source`, `n`) SELECT t.`shop_number`, c.`template_id`, c.`bucket`, c.`source`, COUNT(*) FROM (SELECT `template_id`, `source`, DATE_FORMAT(`created_at`, '%Y-%m-%d %H:00:00') + INTERVAL MINUTE(`created_at`) DIV 15 * 15 MINUTE AS `bucket` FROM `user_coupon` UNION ALL SELECT `template_id`, `source`, DATE_FORMAT(`created_at`, '%Y-%m-%d %H:00:00') + INTERVAL MINUTE(`created_at`) DIV 15 * 15 MINUTE FROM `user_coupon_archive`) c JOIN `coupon_template` t ON t.`id` = c.`template_id` GROUP BY c.`template_id`, c.`bucket`, c.`source`;
-- ...and the EXPIRED ones by the quarter hour of their updated_at (the transition's time), all on
-- user 0 (one MySQL: the one shard; the expirer's rows of shard 0 of 1 name user 0 too).
INSERT INTO `expired_ledger` (`user_id`, `template_id`, `bucket`, `n`) SELECT 0, `template_id`, `bucket`, COUNT(*) FROM (SELECT `template_id`, DATE_FORMAT(`updated_at`, '%Y-%m-%d %H:00:00') + INTERVAL MINUTE(`updated_at`) DIV 15 * 15 MINUTE AS `bucket` FROM `user_coupon` WHERE `status` = 'EXPIRED' UNION ALL SELECT `template_id`, DATE_FORMAT(`updated_at`, '%Y-%m-%d %H:00:00') + INTERVAL MINUTE(`updated_at`) DIV 15 * 15 MINUTE FROM `user_coupon_archive` WHERE `status` = 'EXPIRED') c GROUP BY `template_id`, `bucket`;
-- modify "user_coupon" table (an index drop changes no row: in place, claims go on meanwhile)
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_template_id_status_updated_at`, ALGORITHM=INPLACE, LOCK=NONE;
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` DROP INDEX `usercouponarchive_template_id_status_updated_at`, ALGORITHM=INPLACE, LOCK=NONE;
