-- sharding gate capture of path archive; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `archive_due`.`id`, `archive_due`.`ended_at` FROM `archive_due` WHERE `archive_due`.`ended_at` < '2026-01-01 00:00:00' ORDER BY `archive_due`.`ended_at` LIMIT 1;

-- autocommit
SELECT `archive_due`.`id`, `archive_due`.`user_id` FROM `archive_due` WHERE `archive_due`.`ended_at` < '2026-01-01 00:00:00' ORDER BY `archive_due`.`ended_at`, `archive_due`.`id` LIMIT 500;

-- tx
BEGIN;
SELECT id, user_id, template_id, status, valid_end_time, updated_at FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (11) ORDER BY id FOR UPDATE;
SELECT `archive_due`.`id`, `archive_due`.`user_id`, `archive_due`.`ended_at` FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (11) FOR UPDATE;
SELECT live_coupon_id FROM coupon_settlement WHERE (user_id, live_coupon_id) IN ((11,4242424242424));
DELETE FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (11);
COMMIT;

-- tx
BEGIN;
SELECT id, user_id, template_id, status, valid_end_time, updated_at FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (14) ORDER BY id FOR UPDATE;
SELECT `archive_due`.`id`, `archive_due`.`user_id`, `archive_due`.`ended_at` FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (14) FOR UPDATE;
SELECT live_coupon_id FROM coupon_settlement WHERE (user_id, live_coupon_id) IN ((14,4242424242424));
SELECT `id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id` FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (14);
INSERT INTO user_coupon_archive (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id`, `archived_at`) VALUES (4242424242424, '2026-01-01 00:00:00', '2026-01-01 00:00:00', 14, 4242424242424, 's', 1, 'CLAIM', 'EXPIRED', '2026-01-01 00:00:00', '2026-01-01 00:00:00', NULL, NULL, NULL, 's', 4242424242424, '2026-01-01 00:00:00');
DELETE FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (14);
DELETE FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (14);
COMMIT;

-- tx
BEGIN;
SELECT id, user_id, template_id, status, valid_end_time, updated_at FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (16) ORDER BY id FOR UPDATE;
SELECT `archive_due`.`id`, `archive_due`.`user_id`, `archive_due`.`ended_at` FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (16) FOR UPDATE;
SELECT live_coupon_id FROM coupon_settlement WHERE (user_id, live_coupon_id) IN ((16,4242424242424));
SELECT `id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id` FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (16);
INSERT INTO user_coupon_archive (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id`, `archived_at`) VALUES (4242424242424, '2026-01-01 00:00:00', '2026-01-01 00:00:00', 16, 4242424242424, 's', 1, 'CLAIM', 'EXPIRED', '2026-01-01 00:00:00', '2026-01-01 00:00:00', NULL, NULL, NULL, 's', 4242424242424, '2026-01-01 00:00:00');
DELETE FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (16);
DELETE FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (16);
COMMIT;

-- tx
BEGIN;
SELECT id, user_id, template_id, status, valid_end_time, updated_at FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (17) ORDER BY id FOR UPDATE;
SELECT `archive_due`.`id`, `archive_due`.`user_id`, `archive_due`.`ended_at` FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (17) FOR UPDATE;
SELECT live_coupon_id FROM coupon_settlement WHERE (user_id, live_coupon_id) IN ((17,4242424242424));
SELECT `id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id` FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (17);
INSERT INTO user_coupon_archive (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id`, `archived_at`) VALUES (4242424242424, '2026-01-01 00:00:00', '2026-01-01 00:00:00', 17, 4242424242424, 's', 1, 'CLAIM', 'EXPIRED', '2026-01-01 00:00:00', '2026-01-01 00:00:00', NULL, NULL, NULL, 's', 4242424242424, '2026-01-01 00:00:00');
DELETE FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (17);
DELETE FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (17);
COMMIT;

-- tx
BEGIN;
SELECT id, user_id, template_id, status, valid_end_time, updated_at FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (18) ORDER BY id FOR UPDATE;
SELECT `archive_due`.`id`, `archive_due`.`user_id`, `archive_due`.`ended_at` FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (18) FOR UPDATE;
SELECT live_coupon_id FROM coupon_settlement WHERE (user_id, live_coupon_id) IN ((18,4242424242424));
SELECT `id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id` FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (18);
INSERT INTO user_coupon_archive (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id`, `archived_at`) VALUES (4242424242424, '2026-01-01 00:00:00', '2026-01-01 00:00:00', 18, 4242424242424, 's', 1, 'CLAIM', 'EXPIRED', '2026-01-01 00:00:00', '2026-01-01 00:00:00', NULL, NULL, NULL, 's', 4242424242424, '2026-01-01 00:00:00');
DELETE FROM user_coupon WHERE id IN (4242424242424) AND user_id IN (18);
DELETE FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424) AND `archive_due`.`user_id` IN (18);
COMMIT;

-- tx
BEGIN;
SELECT id, user_id, template_id, status, valid_end_time, updated_at FROM user_coupon WHERE id IN (4242424242424,4242424242424) AND user_id IN (12,13) ORDER BY id FOR UPDATE;
SELECT `archive_due`.`id`, `archive_due`.`user_id`, `archive_due`.`ended_at` FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424, 4242424242424) AND `archive_due`.`user_id` IN (12, 13) FOR UPDATE;
SELECT live_coupon_id FROM coupon_settlement WHERE (user_id, live_coupon_id) IN ((12,4242424242424),(13,4242424242424));
SELECT `id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id` FROM user_coupon WHERE id IN (4242424242424,4242424242424) AND user_id IN (12,13);
INSERT INTO user_coupon_archive (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `stock_batch_id`, `archived_at`) VALUES (4242424242424, '2026-01-01 00:00:00', '2026-01-01 00:00:00', 12, 4242424242424, 's', 1, 'CLAIM', 'EXPIRED', '2026-01-01 00:00:00', '2026-01-01 00:00:00', NULL, NULL, NULL, 's', 4242424242424, '2026-01-01 00:00:00'), (4242424242424, '2026-01-01 00:00:00', '2026-01-01 00:00:00', 13, 4242424242424, 's', 1, 'CLAIM', 'EXPIRED', '2026-01-01 00:00:00', '2026-01-01 00:00:00', NULL, NULL, NULL, 's', 4242424242424, '2026-01-01 00:00:00');
DELETE FROM user_coupon WHERE id IN (4242424242424,4242424242424) AND user_id IN (12,13);
DELETE FROM `archive_due` WHERE `archive_due`.`id` IN (4242424242424, 4242424242424) AND `archive_due`.`user_id` IN (12, 13);
COMMIT;
