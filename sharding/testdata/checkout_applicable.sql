-- sharding gate capture of path checkout_applicable; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `coupon_template`.`shop_number` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424;

-- autocommit
SELECT `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424;

-- autocommit
SELECT id, created_at, user_id, template_id, receive_count, source, status, valid_start_time, valid_end_time, order_id, used_at, discount_amount FROM user_coupon WHERE user_id = 11 AND status IN ('UNUSED', 'LOCKED') ORDER BY valid_end_time, id LIMIT 1000;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 LOCK IN SHARE MODE;
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE (`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`state` = 'OPEN';
COMMIT;
