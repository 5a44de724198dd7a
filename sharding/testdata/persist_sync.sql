-- sharding gate capture of path persist_sync; written by sharding_capture_test.go, do not edit

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 LIMIT 2 FOR UPDATE;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (11) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `redemption_failure`.`id`, `redemption_failure`.`redemption_id`, `redemption_failure`.`reason`, `redemption_failure`.`duplicate_of` FROM `redemption_failure` WHERE `redemption_failure`.`user_id` IN (11) AND `redemption_failure`.`redemption_id` IN ('s');
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (11) AND `user_coupon_archive`.`template_id` = 4242424242424;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `stock` = COALESCE(`coupon_template`.`stock`, 0) + -1 WHERE `id` = 4242424242424;
SELECT `id`, `created_at`, `updated_at`, `shop_number`, `name`, `source`, `target`, `goods`, `type`, `valid_start_time`, `valid_end_time`, `total_stock`, `stock`, `receive_rule`, `consume_rule`, `refund_policy`, `status`, `created_by`, `version` FROM `coupon_template` WHERE `id` = 4242424242424;
INSERT INTO `user_coupon` (`code`, `created_at`, `id`, `receive_count`, `redemption_id`, `request_id`, `source`, `status`, `template_id`, `updated_at`, `user_id`, `valid_end_time`, `valid_start_time`) VALUES ('s', '2026-01-01 00:00:00', 4242424242424, 1, 's', 's', 'CLAIM', 'UNUSED', 4242424242424, '2026-01-01 00:00:00', 11, '2026-01-01 00:00:00', '2026-01-01 00:00:00');
COMMIT;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 LIMIT 2 FOR UPDATE;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (12) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `redemption_failure`.`id`, `redemption_failure`.`redemption_id`, `redemption_failure`.`reason`, `redemption_failure`.`duplicate_of` FROM `redemption_failure` WHERE `redemption_failure`.`user_id` IN (12) AND `redemption_failure`.`redemption_id` IN ('s');
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (12) AND `user_coupon_archive`.`template_id` = 4242424242424;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `stock` = COALESCE(`coupon_template`.`stock`, 0) + -1 WHERE `id` = 4242424242424;
SELECT `id`, `created_at`, `updated_at`, `shop_number`, `name`, `source`, `target`, `goods`, `type`, `valid_start_time`, `valid_end_time`, `total_stock`, `stock`, `receive_rule`, `consume_rule`, `refund_policy`, `status`, `created_by`, `version` FROM `coupon_template` WHERE `id` = 4242424242424;
INSERT INTO `user_coupon` (`code`, `created_at`, `id`, `receive_count`, `redemption_id`, `request_id`, `source`, `status`, `template_id`, `updated_at`, `user_id`, `valid_end_time`, `valid_start_time`) VALUES ('s', '2026-01-01 00:00:00', 4242424242424, 1, 's', 's', 'CLAIM', 'UNUSED', 4242424242424, '2026-01-01 00:00:00', 12, '2026-01-01 00:00:00', '2026-01-01 00:00:00');
COMMIT;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 LIMIT 2 FOR UPDATE;
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`receive_count` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (13) AND `user_coupon`.`template_id` = 4242424242424;
SELECT `redemption_failure`.`id`, `redemption_failure`.`redemption_id`, `redemption_failure`.`reason`, `redemption_failure`.`duplicate_of` FROM `redemption_failure` WHERE `redemption_failure`.`user_id` IN (13) AND `redemption_failure`.`redemption_id` IN ('s');
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`receive_count` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` IN (13) AND `user_coupon_archive`.`template_id` = 4242424242424;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `stock` = COALESCE(`coupon_template`.`stock`, 0) + -1 WHERE `id` = 4242424242424;
SELECT `id`, `created_at`, `updated_at`, `shop_number`, `name`, `source`, `target`, `goods`, `type`, `valid_start_time`, `valid_end_time`, `total_stock`, `stock`, `receive_rule`, `consume_rule`, `refund_policy`, `status`, `created_by`, `version` FROM `coupon_template` WHERE `id` = 4242424242424;
INSERT INTO `user_coupon` (`code`, `created_at`, `id`, `receive_count`, `redemption_id`, `request_id`, `source`, `status`, `template_id`, `updated_at`, `user_id`, `valid_end_time`, `valid_start_time`) VALUES ('s', '2026-01-01 00:00:00', 4242424242424, 1, 's', 's', 'CLAIM', 'UNUSED', 4242424242424, '2026-01-01 00:00:00', 13, '2026-01-01 00:00:00', '2026-01-01 00:00:00');
COMMIT;
