-- sharding gate capture of path persist_refused; written by sharding_capture_test.go, do not edit

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`state`, `stock_batch`.`reserved` FROM `stock_batch` WHERE `stock_batch`.`id` = 4242424242424 AND `stock_batch`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `stock` = COALESCE(`coupon_template`.`stock`, 0) + 1, `issued` = COALESCE(`coupon_template`.`issued`, 0) + 2 WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001;
UPDATE `stock_batch` SET `used` = 2, `state` = 'SETTLED', `settled_at` = '2026-01-01 00:00:00' WHERE `stock_batch`.`id` = 4242424242424 AND `stock_batch`.`shop_number` = 1001;
INSERT INTO issued_ledger (shop_number, template_id, bucket, source, n) VALUES (1001, 4242424242424, '2026-01-01 00:00:00', 'CLAIM', 2) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
COMMIT;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `batch_seq` = 2, `stock` = COALESCE(`coupon_template`.`stock`, 0) + -3 WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001;
INSERT INTO `stock_batch` (`shop_number`, `template_id`, `seq`, `source`, `reserved`, `used`, `state`, `items`, `created_at`, `id`) VALUES (1001, 4242424242424, 2, 'CLAIM', 3, 0, 'OPEN', 's', '2026-01-01 00:00:00', 4242424242424);
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `redemption_failure`.`id`, `redemption_failure`.`redemption_id`, `redemption_failure`.`reason`, `redemption_failure`.`duplicate_of` FROM `redemption_failure` WHERE `redemption_failure`.`user_id` IN (11) AND `redemption_failure`.`redemption_id` IN ('s');
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424;
ROLLBACK;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (15, 16) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `redemption_failure`.`id`, `redemption_failure`.`redemption_id`, `redemption_failure`.`reason`, `redemption_failure`.`duplicate_of` FROM `redemption_failure` WHERE `redemption_failure`.`user_id` IN (15, 16) AND `redemption_failure`.`redemption_id` IN ('s', 's');
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (15, 16) AND `user_coupon_archive`.`template_id` = 4242424242424;
INSERT INTO `user_coupon` (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`) VALUES (4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',15,4242424242424,'4242424242424-4242424242424',1,'CLAIM','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00','req-15',4242424242424),(4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',16,4242424242424,'4242424242424-4242424242424',1,'CLAIM','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00','req-16',4242424242424);
INSERT INTO `stock_batch_fence` (`batch_id`, `user_id`, `state`, `created_at`, `id`) VALUES (4242424242424, 15, 'WRITTEN', '2026-01-01 00:00:00', 4242424242424);
DELETE FROM `stock_batch_fence` WHERE `stock_batch_fence`.`user_id` = 15 AND `stock_batch_fence`.`batch_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count`, `user_coupon`.`redemption_id`, `user_coupon`.`request_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `redemption_failure`.`id`, `redemption_failure`.`redemption_id`, `redemption_failure`.`reason`, `redemption_failure`.`duplicate_of` FROM `redemption_failure` WHERE `redemption_failure`.`user_id` IN (11) AND `redemption_failure`.`redemption_id` IN ('s');
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424;
INSERT INTO `redemption_failure` (`created_at`, `reason`, `redemption_id`, `template_id`, `user_id`) VALUES ('2026-01-01 00:00:00', 's', 's', 4242424242424, 11);
INSERT INTO `stock_batch_fence` (`batch_id`, `user_id`, `state`, `created_at`, `id`) VALUES (4242424242424, 11, 'WRITTEN', '2026-01-01 00:00:00', 4242424242424);
DELETE FROM `stock_batch_fence` WHERE `stock_batch_fence`.`user_id` = 11 AND `stock_batch_fence`.`batch_id` = 4242424242424;
COMMIT;
