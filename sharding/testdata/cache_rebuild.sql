-- sharding gate capture of path cache_rebuild; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `coupon_template`.`shop_number` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424;

-- autocommit
SELECT `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 LOCK IN SHARE MODE;
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE (`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`state` = 'OPEN';
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`redemption_id` IN ('s');
SELECT `redemption_failure`.`redemption_id` FROM `redemption_failure` WHERE (`redemption_failure`.`user_id` IN (11) AND `redemption_failure`.`template_id` = 4242424242424) AND `redemption_failure`.`redemption_id` IN ('s');
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (12, 13) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`redemption_id` IN ('s', 's');
SELECT `redemption_failure`.`redemption_id` FROM `redemption_failure` WHERE (`redemption_failure`.`user_id` IN (12, 13) AND `redemption_failure`.`template_id` = 4242424242424) AND `redemption_failure`.`redemption_id` IN ('s', 's');
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (14) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`redemption_id` IN ('s');
SELECT `redemption_failure`.`redemption_id` FROM `redemption_failure` WHERE (`redemption_failure`.`user_id` IN (14) AND `redemption_failure`.`template_id` = 4242424242424) AND `redemption_failure`.`redemption_id` IN ('s');
COMMIT;
