-- sharding gate capture of path reconcile; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT COUNT(`redemption_failure`.`id`) FROM `redemption_failure` WHERE `redemption_failure`.`template_id` = 4242424242424;

-- autocommit
SELECT `coupon_task`.`id` FROM `coupon_task` WHERE (`coupon_task`.`shop_number` = 1001 AND `coupon_task`.`template_id` = 4242424242424) AND (`coupon_task`.`status` IN ('PENDING', 'IN_PROGRESS') OR (`coupon_task`.`status` = 'CANCELED' AND `coupon_task`.`completed_at` IS NULL));

-- autocommit
SELECT `coupon_template_log`.`id`, `coupon_template_log`.`shop_number`, `coupon_template_log`.`template_id`, `coupon_template_log`.`actor_id`, `coupon_template_log`.`actor_role`, `coupon_template_log`.`action`, `coupon_template_log`.`before`, `coupon_template_log`.`after`, `coupon_template_log`.`created_at` FROM `coupon_template_log` WHERE (`coupon_template_log`.`shop_number` = 1001 AND `coupon_template_log`.`template_id` = 4242424242424) AND `coupon_template_log`.`action` IN ('RECONCILE_DRIFT', 'RECONCILE_BALANCED') ORDER BY `coupon_template_log`.`id` DESC LIMIT 1;

-- autocommit
SELECT `coupon_template`.`id` FROM `coupon_template` WHERE (`coupon_template`.`id` IN (4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424) AND `coupon_template`.`status` = 'ACTIVE') AND `coupon_template`.`valid_end_time` > '2026-01-01 00:00:00';

-- autocommit
SELECT `coupon_template`.`id` FROM `coupon_template` WHERE (`coupon_template`.`status` = 'ACTIVE' AND `coupon_template`.`valid_end_time` > '2026-01-01 00:00:00') AND `coupon_template`.`id` > 0 ORDER BY `coupon_template`.`id` LIMIT 100;

-- autocommit
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 LIMIT 2;

-- autocommit
SELECT `coupon_template`.`shop_number` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424;

-- autocommit
SELECT `stock_batch`.`id` FROM `stock_batch` WHERE ((`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`id` IN (4242424242424)) AND `stock_batch`.`seq` > 1;

-- autocommit
SELECT `stock_batch`.`id` FROM `stock_batch` WHERE ((`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`id` IN (4242424242424, 4242424242424)) AND `stock_batch`.`seq` > 2;

-- autocommit
SELECT `stock_batch`.`id` FROM `stock_batch` WHERE ((`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`id` IN (4242424242424, 4242424242424, 4242424242424)) AND `stock_batch`.`seq` > 3;

-- autocommit
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE ((`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`seq` > 0) AND `stock_batch`.`state` = 'SETTLED';

-- autocommit
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE ((`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`seq` > 1) AND `stock_batch`.`state` = 'SETTLED';

-- autocommit
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE ((`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`seq` > 2) AND `stock_batch`.`state` = 'SETTLED';

-- autocommit
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE ((`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`seq` > 3) AND `stock_batch`.`state` = 'SETTLED';

-- autocommit
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE `stock_batch`.`template_id` = 4242424242424 AND `stock_batch`.`seq` > 0 ORDER BY `stock_batch`.`seq` LIMIT 1;

-- autocommit
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE `stock_batch`.`template_id` = 4242424242424 AND `stock_batch`.`seq` > 1 ORDER BY `stock_batch`.`seq` LIMIT 2;

-- autocommit
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE `stock_batch`.`template_id` = 4242424242424 AND `stock_batch`.`seq` > 3 ORDER BY `stock_batch`.`seq` LIMIT 4;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
SELECT `coupon_template_log`.`id`, `coupon_template_log`.`shop_number`, `coupon_template_log`.`template_id`, `coupon_template_log`.`actor_id`, `coupon_template_log`.`actor_role`, `coupon_template_log`.`action`, `coupon_template_log`.`before`, `coupon_template_log`.`after`, `coupon_template_log`.`created_at` FROM `coupon_template_log` WHERE (`coupon_template_log`.`shop_number` = 1001 AND `coupon_template_log`.`template_id` = 4242424242424) AND `coupon_template_log`.`action` IN ('RECONCILE_DRIFT', 'RECONCILE_BALANCED') ORDER BY `coupon_template_log`.`id` DESC LIMIT 1;
INSERT INTO `coupon_template_log` (`shop_number`, `template_id`, `actor_id`, `actor_role`, `action`, `after`, `created_at`) VALUES (1001, 4242424242424, 0, 'SYSTEM', 'RECONCILE_DRIFT', 's', '2026-01-01 00:00:00');
COMMIT;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2;
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`template_id`, `stock_batch`.`seq`, `stock_batch`.`source`, `stock_batch`.`task_id`, `stock_batch`.`task_start`, `stock_batch`.`reserved`, `stock_batch`.`used`, `stock_batch`.`state`, `stock_batch`.`items`, `stock_batch`.`created_at`, `stock_batch`.`settled_at` FROM `stock_batch` WHERE (`stock_batch`.`shop_number` = 1001 AND `stock_batch`.`template_id` = 4242424242424) AND `stock_batch`.`state` = 'OPEN';
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (12) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (12) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (13) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (13) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (12, 13) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (12, 13) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (12, 13) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (12, 13) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (12, 13) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (12, 13) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (14) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (14) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (14) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (14) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (14, 99) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (14, 99) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (14, 99) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (14, 99) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (15, 16) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (15, 16) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (15, 16) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (15, 16) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (17) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (17) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (17) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (17) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`redemption_id`, `user_coupon`.`created_at` FROM `user_coupon` WHERE (`user_coupon`.`user_id` IN (18) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`created_at` FROM `user_coupon_archive` WHERE (`user_coupon_archive`.`user_id` IN (18) AND `user_coupon_archive`.`template_id` = 4242424242424) AND `user_coupon_archive`.`stock_batch_id` = 4242424242424;
SELECT `user_coupon`.`user_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (18) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (18) AND `user_coupon_archive`.`template_id` = 4242424242424;
COMMIT;
