-- sharding gate capture of path checkout_confirm; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `coupon_settlement`.`id`, `coupon_settlement`.`created_at`, `coupon_settlement`.`updated_at`, `coupon_settlement`.`user_id`, `coupon_settlement`.`order_id`, `coupon_settlement`.`coupon_id`, `coupon_settlement`.`template_id`, `coupon_settlement`.`status`, `coupon_settlement`.`order_amount`, `coupon_settlement`.`discount_amount`, `coupon_settlement`.`payable_amount`, `coupon_settlement`.`lock_expires_at`, `coupon_settlement`.`live_coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`paid_at`, `coupon_settlement`.`refunded_at` FROM `coupon_settlement` WHERE (`coupon_settlement`.`order_id` = 100 AND `coupon_settlement`.`coupon_id` = 4242424242424) AND `coupon_settlement`.`user_id` IN (SELECT `user_coupon`.`user_id` FROM `user_coupon` WHERE `user_coupon`.`id` = 4242424242424) LIMIT 2;

-- autocommit
SELECT `coupon_settlement`.`id`, `coupon_settlement`.`created_at`, `coupon_settlement`.`updated_at`, `coupon_settlement`.`user_id`, `coupon_settlement`.`order_id`, `coupon_settlement`.`coupon_id`, `coupon_settlement`.`template_id`, `coupon_settlement`.`status`, `coupon_settlement`.`order_amount`, `coupon_settlement`.`discount_amount`, `coupon_settlement`.`payable_amount`, `coupon_settlement`.`lock_expires_at`, `coupon_settlement`.`live_coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`paid_at`, `coupon_settlement`.`refunded_at` FROM `coupon_settlement` WHERE (`coupon_settlement`.`order_id` = 101 AND `coupon_settlement`.`coupon_id` = 4242424242424) AND `coupon_settlement`.`user_id` IN (SELECT `user_coupon`.`user_id` FROM `user_coupon` WHERE `user_coupon`.`id` = 4242424242424) LIMIT 2;

-- tx
BEGIN;
UPDATE coupon_settlement SET status = 'PAID', updated_at = '2026-01-01 00:00:00', paid_at = '2026-01-01 00:00:00' WHERE user_id = 11 AND id = 4242424242424 AND status = 'LOCKED' AND lock_expires_at = '2026-01-01 00:00:00' AND order_amount = '100';
UPDATE user_coupon SET status = 'USED', updated_at = '2026-01-01 00:00:00', used_at = '2026-01-01 00:00:00' WHERE user_id = 11 AND id = 4242424242424 AND status = 'LOCKED' AND order_id = 100;
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 11) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
COMMIT;

-- tx
BEGIN;
UPDATE coupon_settlement SET status = 'PAID', updated_at = '2026-01-01 00:00:00', paid_at = '2026-01-01 00:00:00' WHERE user_id = 12 AND id = 4242424242424 AND status = 'LOCKED' AND lock_expires_at = '2026-01-01 00:00:00' AND order_amount = '100';
UPDATE user_coupon SET status = 'USED', updated_at = '2026-01-01 00:00:00', used_at = '2026-01-01 00:00:00' WHERE user_id = 12 AND id = 4242424242424 AND status = 'LOCKED' AND order_id = 101;
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 12) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
COMMIT;
