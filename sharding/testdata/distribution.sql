-- sharding gate capture of path distribution; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `coupon_task_failure`.`id`, `coupon_task_failure`.`task_id`, `coupon_task_failure`.`shop_number`, `coupon_task_failure`.`row_num`, `coupon_task_failure`.`user_id`, `coupon_task_failure`.`code`, `coupon_task_failure`.`reason`, `coupon_task_failure`.`created_at` FROM `coupon_task_failure` WHERE `coupon_task_failure`.`task_id` = 4242424242424 AND `coupon_task_failure`.`row_num` > 0 ORDER BY `coupon_task_failure`.`row_num` LIMIT 11;

-- autocommit
SELECT `coupon_task_failure`.`id`, `coupon_task_failure`.`task_id`, `coupon_task_failure`.`shop_number`, `coupon_task_failure`.`row_num`, `coupon_task_failure`.`user_id`, `coupon_task_failure`.`code`, `coupon_task_failure`.`reason`, `coupon_task_failure`.`created_at` FROM `coupon_task_failure` WHERE `coupon_task_failure`.`task_id` = 4242424242424 AND `coupon_task_failure`.`row_num` > 0 ORDER BY `coupon_task_failure`.`row_num` LIMIT 5001;

-- autocommit
SELECT `coupon_task`.`id`, `coupon_task`.`created_at`, `coupon_task`.`updated_at`, `coupon_task`.`shop_number`, `coupon_task`.`template_id`, `coupon_task`.`name`, `coupon_task`.`file_path`, `coupon_task`.`file_name`, `coupon_task`.`send_type`, `coupon_task`.`send_time`, `coupon_task`.`send_num`, `coupon_task`.`processed_rows`, `coupon_task`.`success_count`, `coupon_task`.`fail_count`, `coupon_task`.`status`, `coupon_task`.`failure_report_path`, `coupon_task`.`sheet_name`, `coupon_task`.`resume_row`, `coupon_task`.`failure_reason`, `coupon_task`.`file_deleted`, `coupon_task`.`operator_id`, `coupon_task`.`completed_at` FROM `coupon_task` WHERE `coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001 LIMIT 2;

-- autocommit
SELECT `coupon_task`.`id`, `coupon_task`.`created_at`, `coupon_task`.`updated_at`, `coupon_task`.`shop_number`, `coupon_task`.`template_id`, `coupon_task`.`name`, `coupon_task`.`file_path`, `coupon_task`.`file_name`, `coupon_task`.`send_type`, `coupon_task`.`send_time`, `coupon_task`.`send_num`, `coupon_task`.`processed_rows`, `coupon_task`.`success_count`, `coupon_task`.`fail_count`, `coupon_task`.`status`, `coupon_task`.`failure_report_path`, `coupon_task`.`sheet_name`, `coupon_task`.`resume_row`, `coupon_task`.`failure_reason`, `coupon_task`.`file_deleted`, `coupon_task`.`operator_id`, `coupon_task`.`completed_at` FROM `coupon_task` WHERE `coupon_task`.`id` = 4242424242424 LIMIT 2;

-- autocommit
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2;

-- autocommit
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 LIMIT 2;

-- autocommit
SELECT `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001;

-- autocommit
UPDATE `coupon_task` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'IN_PROGRESS' WHERE (`coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001) AND `coupon_task`.`status` = 'PENDING';

-- tx
BEGIN;
INSERT INTO `coupon_task` (`created_at`, `updated_at`, `shop_number`, `template_id`, `name`, `file_path`, `file_name`, `send_type`, `send_num`, `processed_rows`, `success_count`, `fail_count`, `status`, `resume_row`, `file_deleted`, `operator_id`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 1001, 4242424242424, 's', 's', 's', 'IMMEDIATE', 10, 0, 0, 0, 'PENDING', 0, 0, 1, 4242424242424);
INSERT INTO `coupon_template_log` (`shop_number`, `template_id`, `actor_id`, `actor_role`, `action`, `after`, `created_at`) VALUES (1001, 4242424242424, 1, 'MERCHANT', 'TASK_CREATE', 's', '2026-01-01 00:00:00');
COMMIT;

-- tx
BEGIN;
SELECT `coupon_task`.`id`, `coupon_task`.`created_at`, `coupon_task`.`updated_at`, `coupon_task`.`shop_number`, `coupon_task`.`template_id`, `coupon_task`.`name`, `coupon_task`.`file_path`, `coupon_task`.`file_name`, `coupon_task`.`send_type`, `coupon_task`.`send_time`, `coupon_task`.`send_num`, `coupon_task`.`processed_rows`, `coupon_task`.`success_count`, `coupon_task`.`fail_count`, `coupon_task`.`status`, `coupon_task`.`failure_report_path`, `coupon_task`.`sheet_name`, `coupon_task`.`resume_row`, `coupon_task`.`failure_reason`, `coupon_task`.`file_deleted`, `coupon_task`.`operator_id`, `coupon_task`.`completed_at` FROM `coupon_task` WHERE `coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
INSERT INTO `coupon_task_failure` (`code`, `created_at`, `reason`, `row_num`, `shop_number`, `task_id`, `user_id`) VALUES ('DUPLICATE_IN_FILE', '2026-01-01 00:00:00', 's', 10, 1001, 4242424242424, '11');
UPDATE `coupon_task` SET `updated_at` = '2026-01-01 00:00:00', `resume_row` = 11, `processed_rows` = COALESCE(`coupon_task`.`processed_rows`, 0) + 10, `fail_count` = COALESCE(`coupon_task`.`fail_count`, 0) + 1 WHERE `coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001;
SELECT `coupon_task`.`id`, `coupon_task`.`created_at`, `coupon_task`.`updated_at`, `coupon_task`.`shop_number`, `coupon_task`.`template_id`, `coupon_task`.`name`, `coupon_task`.`file_path`, `coupon_task`.`file_name`, `coupon_task`.`send_type`, `coupon_task`.`send_time`, `coupon_task`.`send_num`, `coupon_task`.`processed_rows`, `coupon_task`.`success_count`, `coupon_task`.`fail_count`, `coupon_task`.`status`, `coupon_task`.`failure_report_path`, `coupon_task`.`sheet_name`, `coupon_task`.`resume_row`, `coupon_task`.`failure_reason`, `coupon_task`.`file_deleted`, `coupon_task`.`operator_id`, `coupon_task`.`completed_at` FROM `coupon_task` WHERE `coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001 LIMIT 2;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `batch_seq` = 1, `stock` = COALESCE(`coupon_template`.`stock`, 0) + -9 WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001;
INSERT INTO `stock_batch` (`shop_number`, `template_id`, `seq`, `source`, `task_id`, `task_start`, `reserved`, `used`, `state`, `items`, `created_at`, `id`) VALUES (1001, 4242424242424, 1, 'DISTRIBUTION', 4242424242424, 0, 9, 0, 'OPEN', 's', '2026-01-01 00:00:00', 4242424242424);
COMMIT;

-- tx
BEGIN;
SELECT `coupon_task`.`id`, `coupon_task`.`created_at`, `coupon_task`.`updated_at`, `coupon_task`.`shop_number`, `coupon_task`.`template_id`, `coupon_task`.`name`, `coupon_task`.`file_path`, `coupon_task`.`file_name`, `coupon_task`.`send_type`, `coupon_task`.`send_time`, `coupon_task`.`send_num`, `coupon_task`.`processed_rows`, `coupon_task`.`success_count`, `coupon_task`.`fail_count`, `coupon_task`.`status`, `coupon_task`.`failure_report_path`, `coupon_task`.`sheet_name`, `coupon_task`.`resume_row`, `coupon_task`.`failure_reason`, `coupon_task`.`file_deleted`, `coupon_task`.`operator_id`, `coupon_task`.`completed_at` FROM `coupon_task` WHERE `coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
SELECT `stock_batch`.`id`, `stock_batch`.`shop_number`, `stock_batch`.`state`, `stock_batch`.`reserved` FROM `stock_batch` WHERE `stock_batch`.`id` = 4242424242424 AND `stock_batch`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `stock` = COALESCE(`coupon_template`.`stock`, 0) + 0, `issued` = COALESCE(`coupon_template`.`issued`, 0) + 9 WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001;
UPDATE `stock_batch` SET `used` = 9, `state` = 'SETTLED', `settled_at` = '2026-01-01 00:00:00' WHERE `stock_batch`.`id` = 4242424242424 AND `stock_batch`.`shop_number` = 1001;
INSERT INTO issued_ledger (shop_number, template_id, bucket, source, n) VALUES (1001, 4242424242424, '2026-01-01 00:00:00', 'DISTRIBUTION', 9) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
UPDATE `coupon_task` SET `updated_at` = '2026-01-01 00:00:00', `success_count` = COALESCE(`coupon_task`.`success_count`, 0) + 9, `fail_count` = COALESCE(`coupon_task`.`fail_count`, 0) + 0 WHERE `coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001;
SELECT `coupon_task`.`id`, `coupon_task`.`created_at`, `coupon_task`.`updated_at`, `coupon_task`.`shop_number`, `coupon_task`.`template_id`, `coupon_task`.`name`, `coupon_task`.`file_path`, `coupon_task`.`file_name`, `coupon_task`.`send_type`, `coupon_task`.`send_time`, `coupon_task`.`send_num`, `coupon_task`.`processed_rows`, `coupon_task`.`success_count`, `coupon_task`.`fail_count`, `coupon_task`.`status`, `coupon_task`.`failure_report_path`, `coupon_task`.`sheet_name`, `coupon_task`.`resume_row`, `coupon_task`.`failure_reason`, `coupon_task`.`file_deleted`, `coupon_task`.`operator_id`, `coupon_task`.`completed_at` FROM `coupon_task` WHERE `coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001 LIMIT 2;
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424;
INSERT INTO `user_coupon` (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`) VALUES (4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',11,4242424242424,'d4242424242424-2',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424);
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (12, 13) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (12, 13) AND `user_coupon_archive`.`template_id` = 4242424242424;
INSERT INTO `user_coupon` (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`) VALUES (4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',12,4242424242424,'d4242424242424-3',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424),(4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',13,4242424242424,'d4242424242424-4',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424);
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (14, 99) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (14, 99) AND `user_coupon_archive`.`template_id` = 4242424242424;
INSERT INTO `user_coupon` (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`) VALUES (4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',14,4242424242424,'d4242424242424-5',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424),(4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',99,4242424242424,'d4242424242424-11',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424);
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (15, 16) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (15, 16) AND `user_coupon_archive`.`template_id` = 4242424242424;
INSERT INTO `user_coupon` (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`) VALUES (4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',15,4242424242424,'d4242424242424-6',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424),(4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',16,4242424242424,'d4242424242424-7',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424);
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (17) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (17) AND `user_coupon_archive`.`template_id` = 4242424242424;
INSERT INTO `user_coupon` (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`) VALUES (4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',17,4242424242424,'d4242424242424-8',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424);
COMMIT;

-- tx
BEGIN;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (18) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (18) AND `user_coupon_archive`.`template_id` = 4242424242424;
INSERT INTO `user_coupon` (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `request_id`, `stock_batch_id`) VALUES (4242424242424,'2026-01-01 00:00:00','2026-01-01 00:00:00',18,4242424242424,'d4242424242424-9',1,'DISTRIBUTION','UNUSED','2026-01-01 00:00:00','2026-01-01 00:00:00',NULL,4242424242424);
COMMIT;

-- tx
BEGIN;
UPDATE `coupon_task` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'SUCCESS', `completed_at` = '2026-01-01 00:00:00' WHERE (`coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001) AND `coupon_task`.`status` = 'IN_PROGRESS';
SELECT `coupon_task`.`id`, `coupon_task`.`created_at`, `coupon_task`.`updated_at`, `coupon_task`.`shop_number`, `coupon_task`.`template_id`, `coupon_task`.`name`, `coupon_task`.`file_path`, `coupon_task`.`file_name`, `coupon_task`.`send_type`, `coupon_task`.`send_time`, `coupon_task`.`send_num`, `coupon_task`.`processed_rows`, `coupon_task`.`success_count`, `coupon_task`.`fail_count`, `coupon_task`.`status`, `coupon_task`.`failure_report_path`, `coupon_task`.`sheet_name`, `coupon_task`.`resume_row`, `coupon_task`.`failure_reason`, `coupon_task`.`file_deleted`, `coupon_task`.`operator_id`, `coupon_task`.`completed_at` FROM `coupon_task` WHERE `coupon_task`.`id` = 4242424242424 AND `coupon_task`.`shop_number` = 1001 LIMIT 2;
INSERT INTO `coupon_template_log` (`shop_number`, `template_id`, `actor_id`, `actor_role`, `action`, `after`, `created_at`) VALUES (1001, 4242424242424, 0, 'SYSTEM', 'TASK_END', 's', '2026-01-01 00:00:00');
COMMIT;
