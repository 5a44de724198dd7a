-- sharding gate capture of path checkout_lock; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id`, `s`.`coupon_id`, `s`.`live_slot`, `s`.`discount_amount` FROM `user_coupon` LEFT JOIN `coupon_settlement` AS `s` ON `s`.`user_id` = `user_coupon`.`user_id` AND `s`.`order_id` = 100 AND `s`.`live_slot` IS NOT NULL WHERE `user_coupon`.`user_id` = 11 AND `user_coupon`.`id` = 4242424242424;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id`, `s`.`coupon_id`, `s`.`live_slot`, `s`.`discount_amount` FROM `user_coupon` LEFT JOIN `coupon_settlement` AS `s` ON `s`.`user_id` = `user_coupon`.`user_id` AND `s`.`order_id` = 101 AND `s`.`live_slot` IS NOT NULL WHERE `user_coupon`.`user_id` = 12 AND `user_coupon`.`id` = 4242424242424;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id`, `s`.`coupon_id`, `s`.`live_slot`, `s`.`discount_amount` FROM `user_coupon` LEFT JOIN `coupon_settlement` AS `s` ON `s`.`user_id` = `user_coupon`.`user_id` AND `s`.`order_id` = 102 AND `s`.`live_slot` IS NOT NULL WHERE `user_coupon`.`user_id` = 13 AND `user_coupon`.`id` = 4242424242424;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id`, `s`.`coupon_id`, `s`.`live_slot`, `s`.`discount_amount` FROM `user_coupon` LEFT JOIN `coupon_settlement` AS `s` ON `s`.`user_id` = `user_coupon`.`user_id` AND `s`.`order_id` = 103 AND `s`.`live_slot` IS NOT NULL WHERE `user_coupon`.`user_id` = 14 AND `user_coupon`.`id` = 4242424242424;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id`, `s`.`coupon_id`, `s`.`live_slot`, `s`.`discount_amount` FROM `user_coupon` LEFT JOIN `coupon_settlement` AS `s` ON `s`.`user_id` = `user_coupon`.`user_id` AND `s`.`order_id` = 104 AND `s`.`live_slot` IS NOT NULL WHERE `user_coupon`.`user_id` = 15 AND `user_coupon`.`id` = 4242424242424;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'LOCKED', `order_id` = 100, `discount_amount` = '5' WHERE ((`user_coupon`.`user_id` = 11 AND `user_coupon`.`id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` > '2026-01-01 00:00:00';
INSERT INTO `coupon_settlement` (`created_at`, `updated_at`, `user_id`, `order_id`, `coupon_id`, `template_id`, `status`, `order_amount`, `discount_amount`, `payable_amount`, `lock_expires_at`, `live_coupon_id`, `live_slot`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 11, 100, 4242424242424, 4242424242424, 'LOCKED', '100', '5', '95', '2026-01-01 00:00:00', 4242424242424, 's', 4242424242424);
SELECT `coupon_settlement`.`coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`discount_amount` FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = 11 AND `coupon_settlement`.`order_id` = 100) AND `coupon_settlement`.`live_slot` IS NOT NULL FOR UPDATE;
COMMIT;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'LOCKED', `order_id` = 101, `discount_amount` = '5' WHERE ((`user_coupon`.`user_id` = 12 AND `user_coupon`.`id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` > '2026-01-01 00:00:00';
INSERT INTO `coupon_settlement` (`created_at`, `updated_at`, `user_id`, `order_id`, `coupon_id`, `template_id`, `status`, `order_amount`, `discount_amount`, `payable_amount`, `lock_expires_at`, `live_coupon_id`, `live_slot`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 12, 101, 4242424242424, 4242424242424, 'LOCKED', '100', '5', '95', '2026-01-01 00:00:00', 4242424242424, 's', 4242424242424);
SELECT `coupon_settlement`.`coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`discount_amount` FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = 12 AND `coupon_settlement`.`order_id` = 101) AND `coupon_settlement`.`live_slot` IS NOT NULL FOR UPDATE;
COMMIT;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'LOCKED', `order_id` = 102, `discount_amount` = '5' WHERE ((`user_coupon`.`user_id` = 13 AND `user_coupon`.`id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` > '2026-01-01 00:00:00';
INSERT INTO `coupon_settlement` (`created_at`, `updated_at`, `user_id`, `order_id`, `coupon_id`, `template_id`, `status`, `order_amount`, `discount_amount`, `payable_amount`, `lock_expires_at`, `live_coupon_id`, `live_slot`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 13, 102, 4242424242424, 4242424242424, 'LOCKED', '100', '5', '95', '2026-01-01 00:00:00', 4242424242424, 's', 4242424242424);
SELECT `coupon_settlement`.`coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`discount_amount` FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = 13 AND `coupon_settlement`.`order_id` = 102) AND `coupon_settlement`.`live_slot` IS NOT NULL FOR UPDATE;
COMMIT;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'LOCKED', `order_id` = 103, `discount_amount` = '5' WHERE ((`user_coupon`.`user_id` = 14 AND `user_coupon`.`id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` > '2026-01-01 00:00:00';
INSERT INTO `coupon_settlement` (`created_at`, `updated_at`, `user_id`, `order_id`, `coupon_id`, `template_id`, `status`, `order_amount`, `discount_amount`, `payable_amount`, `lock_expires_at`, `live_coupon_id`, `live_slot`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 14, 103, 4242424242424, 4242424242424, 'LOCKED', '100', '5', '95', '2026-01-01 00:00:00', 4242424242424, 's', 4242424242424);
SELECT `coupon_settlement`.`coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`discount_amount` FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = 14 AND `coupon_settlement`.`order_id` = 103) AND `coupon_settlement`.`live_slot` IS NOT NULL FOR UPDATE;
COMMIT;

-- tx
BEGIN;
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'LOCKED', `order_id` = 104, `discount_amount` = '5' WHERE ((`user_coupon`.`user_id` = 15 AND `user_coupon`.`id` = 4242424242424) AND `user_coupon`.`status` = 'UNUSED') AND `user_coupon`.`valid_end_time` > '2026-01-01 00:00:00';
INSERT INTO `coupon_settlement` (`created_at`, `updated_at`, `user_id`, `order_id`, `coupon_id`, `template_id`, `status`, `order_amount`, `discount_amount`, `payable_amount`, `lock_expires_at`, `live_coupon_id`, `live_slot`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 15, 104, 4242424242424, 4242424242424, 'LOCKED', '100', '5', '95', '2026-01-01 00:00:00', 4242424242424, 's', 4242424242424);
SELECT `coupon_settlement`.`coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`discount_amount` FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = 15 AND `coupon_settlement`.`order_id` = 104) AND `coupon_settlement`.`live_slot` IS NOT NULL FOR UPDATE;
COMMIT;
