-- sharding gate capture of path template_admin; written by sharding_capture_test.go, do not edit

-- tx
BEGIN;
INSERT INTO `coupon_template` (`created_at`, `updated_at`, `shop_number`, `name`, `source`, `target`, `type`, `valid_start_time`, `valid_end_time`, `total_stock`, `stock`, `receive_rule`, `consume_rule`, `refund_policy`, `status`, `created_by`, `version`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 1001, 's', 'SHOP', 'SHOP_WIDE', 'FIXED_OFF', '2026-01-01 00:00:00', '2026-01-01 00:00:00', 100, 100, 's', 's', 'RETURN', 'ACTIVE', 1, 0, 4242424242424);
INSERT INTO `coupon_template_log` (`shop_number`, `template_id`, `actor_id`, `actor_role`, `action`, `after`, `created_at`) VALUES (1001, 4242424242424, 1, 'MERCHANT', 'CREATE', 's', '2026-01-01 00:00:00');
COMMIT;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'ENDED', `version` = COALESCE(`coupon_template`.`version`, 0) + 1 WHERE `id` = 4242424242424;
SELECT `id`, `created_at`, `updated_at`, `shop_number`, `name`, `source`, `target`, `goods`, `type`, `valid_start_time`, `valid_end_time`, `total_stock`, `stock`, `receive_rule`, `consume_rule`, `refund_policy`, `status`, `created_by`, `version` FROM `coupon_template` WHERE `id` = 4242424242424;
INSERT INTO `coupon_template_log` (`shop_number`, `template_id`, `actor_id`, `actor_role`, `action`, `before`, `after`, `created_at`) VALUES (1001, 4242424242424, 1, 'MERCHANT', 'TERMINATE', 's', 's', '2026-01-01 00:00:00');
COMMIT;

-- tx
BEGIN;
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 AND `coupon_template`.`shop_number` = 1001 LIMIT 2 FOR UPDATE;
UPDATE `coupon_template` SET `updated_at` = '2026-01-01 00:00:00', `total_stock` = COALESCE(`coupon_template`.`total_stock`, 0) + 5, `stock` = COALESCE(`coupon_template`.`stock`, 0) + 5, `version` = COALESCE(`coupon_template`.`version`, 0) + 1 WHERE `id` = 4242424242424;
SELECT `id`, `created_at`, `updated_at`, `shop_number`, `name`, `source`, `target`, `goods`, `type`, `valid_start_time`, `valid_end_time`, `total_stock`, `stock`, `receive_rule`, `consume_rule`, `refund_policy`, `status`, `created_by`, `version` FROM `coupon_template` WHERE `id` = 4242424242424;
INSERT INTO `coupon_template_log` (`shop_number`, `template_id`, `actor_id`, `actor_role`, `action`, `before`, `after`, `created_at`) VALUES (1001, 4242424242424, 1, 'MERCHANT', 'INCREASE_STOCK', 's', 's', '2026-01-01 00:00:00');
COMMIT;
