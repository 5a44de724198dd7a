-- sharding gate capture of path expiry; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`valid_end_time` FROM `user_coupon` WHERE (`user_coupon`.`id` > 0 AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` <= '2026-01-01 00:00:00' ORDER BY `user_coupon`.`id` LIMIT 1000;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'EXPIRED' WHERE (((`user_coupon`.`user_id` IN (12, 13) AND `user_coupon`.`id` IN (4242424242424, 4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((12, 4242424242424), (13, 4242424242424))) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` <= '2026-01-01 00:00:00';
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`status`, `user_coupon`.`updated_at` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (12, 13) AND `user_coupon`.`id` IN (4242424242424, 4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((12, 4242424242424), (13, 4242424242424));
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 12), ('2026-01-01 00:00:00', 4242424242424, 13) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
INSERT INTO expired_ledger (user_id, template_id, bucket, n) VALUES (3, 4242424242424, '2026-01-01 00:00:00', 2) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
COMMIT;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'EXPIRED' WHERE (((`user_coupon`.`user_id` IN (14) AND `user_coupon`.`id` IN (4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((14, 4242424242424))) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` <= '2026-01-01 00:00:00';
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`status`, `user_coupon`.`updated_at` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (14) AND `user_coupon`.`id` IN (4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((14, 4242424242424));
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 14) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
INSERT INTO expired_ledger (user_id, template_id, bucket, n) VALUES (14, 4242424242424, '2026-01-01 00:00:00', 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
COMMIT;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'EXPIRED' WHERE (((`user_coupon`.`user_id` IN (16) AND `user_coupon`.`id` IN (4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((16, 4242424242424))) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` <= '2026-01-01 00:00:00';
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`status`, `user_coupon`.`updated_at` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (16) AND `user_coupon`.`id` IN (4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((16, 4242424242424));
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 16) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
INSERT INTO expired_ledger (user_id, template_id, bucket, n) VALUES (10, 4242424242424, '2026-01-01 00:00:00', 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
COMMIT;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'EXPIRED' WHERE (((`user_coupon`.`user_id` IN (17) AND `user_coupon`.`id` IN (4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((17, 4242424242424))) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` <= '2026-01-01 00:00:00';
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`status`, `user_coupon`.`updated_at` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (17) AND `user_coupon`.`id` IN (4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((17, 4242424242424));
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 17) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
INSERT INTO expired_ledger (user_id, template_id, bucket, n) VALUES (8, 4242424242424, '2026-01-01 00:00:00', 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
COMMIT;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'EXPIRED' WHERE (((`user_coupon`.`user_id` IN (18) AND `user_coupon`.`id` IN (4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((18, 4242424242424))) AND `user_coupon`.`template_id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` <= '2026-01-01 00:00:00';
SELECT `user_coupon`.`id`, `user_coupon`.`user_id`, `user_coupon`.`status`, `user_coupon`.`updated_at` FROM `user_coupon` WHERE `user_coupon`.`user_id` IN (18) AND `user_coupon`.`id` IN (4242424242424) AND (`user_coupon`.`user_id`, `user_coupon`.`id`) IN ((18, 4242424242424));
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 18) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
INSERT INTO expired_ledger (user_id, template_id, bucket, n) VALUES (18, 4242424242424, '2026-01-01 00:00:00', 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
COMMIT;
