-- create "archive_due" table
CREATE TABLE `archive_due` (`id` bigint NOT NULL AUTO_INCREMENT, `user_id` bigint NOT NULL, `ended_at` datetime(3) NOT NULL, PRIMARY KEY (`id`), INDEX `archivedue_ended_at` (`ended_at`)) CHARSET utf8mb4 COLLATE utf8mb4_bin;
-- backfill (hand-written): the coupons already EXPIRED or USED are due from their updated_at, as the
-- old walk saw them; read over the index dropped next, so only those rows are read (and share-locked).
INSERT IGNORE INTO `archive_due` (`id`, `user_id`, `ended_at`) SELECT `id`, `user_id`, `updated_at` FROM `user_coupon` FORCE INDEX (`usercoupon_status_updated_at`) WHERE `status` IN ('EXPIRED', 'USED');
-- modify "user_coupon" table
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_status_updated_at`;
