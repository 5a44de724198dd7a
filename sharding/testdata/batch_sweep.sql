-- sharding gate capture of path batch_sweep; written by sharding_capture_test.go, do not edit

-- autocommit
INSERT IGNORE INTO stock_batch_fence (id, batch_id, user_id, state, created_at) VALUES (4242424242424, 4242424242424, 11, 'FENCED', '2026-01-01 00:00:00');

-- autocommit
INSERT IGNORE INTO stock_batch_fence (id, batch_id, user_id, state, created_at) VALUES (4242424242424, 4242424242424, 12, 'FENCED', '2026-01-01 00:00:00');

-- autocommit
INSERT IGNORE INTO stock_batch_fence (id, batch_id, user_id, state, created_at) VALUES (4242424242424, 4242424242424, 14, 'FENCED', '2026-01-01 00:00:00');

-- autocommit
INSERT IGNORE INTO stock_batch_fence (id, batch_id, user_id, state, created_at) VALUES (4242424242424, 4242424242424, 15, 'FENCED', '2026-01-01 00:00:00');

-- autocommit
INSERT IGNORE INTO stock_batch_fence (id, batch_id, user_id, state, created_at) VALUES (4242424242424, 4242424242424, 17, 'FENCED', '2026-01-01 00:00:00');

-- autocommit
INSERT IGNORE INTO stock_batch_fence (id, batch_id, user_id, state, created_at) VALUES (4242424242424, 4242424242424, 18, 'FENCED', '2026-01-01 00:00:00');

-- autocommit
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE (`stock_batch`.`state` = 'OPEN' AND `stock_batch`.`source` = 'CLAIM') AND `stock_batch`.`created_at` < '2026-01-01 00:00:00' LIMIT 100;

-- autocommit
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (11, 12, 13, 14, 15, 16, 17, 18) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;

-- autocommit
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (11, 12, 13, 14, 15, 16, 17, 18) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`state`, `stock_batch`.`reserved` FROM `stock_batch` WHERE `stock_batch`.`id` = 4242424242424 AND `stock_batch`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `stock` = COALESCE(`coupon_template`.`stock`, 0) + 8, `issued` = COALESCE(`coupon_template`.`issued`, 0) + 0 WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001;
UPDATE `stock_batch` SET `used` = 0, `state` = 'SETTLED', `settled_at` = '2026-01-01 00:00:00' WHERE `stock_batch`.`id` = 4242424242424 AND `stock_batch`.`shop_number` = 1001;
COMMIT;
