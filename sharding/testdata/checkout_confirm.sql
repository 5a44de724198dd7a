-- sharding gate capture of path checkout_confirm; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `coupon_settlement`.`id`, `coupon_settlement`.`created_at`, `coupon_settlement`.`updated_at`, `coupon_settlement`.`user_id`, `coupon_settlement`.`order_id`, `coupon_settlement`.`coupon_id`, `coupon_settlement`.`template_id`, `coupon_settlement`.`status`, `coupon_settlement`.`order_amount`, `coupon_settlement`.`discount_amount`, `coupon_settlement`.`payable_amount`, `coupon_settlement`.`lock_expires_at`, `coupon_settlement`.`live_coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`paid_at`, `coupon_settlement`.`refunded_at` FROM `coupon_settlement` WHERE (`coupon_settlement`.`order_id` = 100 AND `coupon_settlement`.`coupon_id` = 4242424242424) AND `coupon_settlement`.`user_id` IN (SELECT `user_coupon`.`user_id` FROM `user_coupon` WHERE `user_coupon`.`id` = 4242424242424) LIMIT 2;

-- autocommit
SELECT `coupon_settlement`.`id`, `coupon_settlement`.`created_at`, `coupon_settlement`.`updated_at`, `coupon_settlement`.`user_id`, `coupon_settlement`.`order_id`, `coupon_settlement`.`coupon_id`, `coupon_settlement`.`template_id`, `coupon_settlement`.`status`, `coupon_settlement`.`order_amount`, `coupon_settlement`.`discount_amount`, `coupon_settlement`.`payable_amount`, `coupon_settlement`.`lock_expires_at`, `coupon_settlement`.`live_coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`paid_at`, `coupon_settlement`.`refunded_at` FROM `coupon_settlement` WHERE (`coupon_settlement`.`order_id` = 101 AND `coupon_settlement`.`coupon_id` = 4242424242424) AND `coupon_settlement`.`user_id` IN (SELECT `user_coupon`.`user_id` FROM `user_coupon` WHERE `user_coupon`.`id` = 4242424242424) LIMIT 2;

-- tx
BEGIN;
UPDATE coupon_settlement s JOIN user_coupon c ON c.user_id = s.user_id AND c.id = s.coupon_id SET s.status = 'PAID', s.updated_at = '2026-01-01 00:00:00', s.paid_at = '2026-01-01 00:00:00', c.status = 'USED', c.updated_at = '2026-01-01 00:00:00', c.used_at = '2026-01-01 00:00:00' WHERE s.user_id = 11 AND s.id = 4242424242424 AND s.status = 'LOCKED' AND s.lock_expires_at > '2026-01-01 00:00:00' AND s.order_amount = '100' AND c.user_id = 11 AND c.id = 4242424242424 AND c.status = 'LOCKED' AND c.order_id = 100;
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 11) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
COMMIT;

-- tx
BEGIN;
UPDATE coupon_settlement s JOIN user_coupon c ON c.user_id = s.user_id AND c.id = s.coupon_id SET s.status = 'PAID', s.updated_at = '2026-01-01 00:00:00', s.paid_at = '2026-01-01 00:00:00', c.status = 'USED', c.updated_at = '2026-01-01 00:00:00', c.used_at = '2026-01-01 00:00:00' WHERE s.user_id = 12 AND s.id = 4242424242424 AND s.status = 'LOCKED' AND s.lock_expires_at > '2026-01-01 00:00:00' AND s.order_amount = '100' AND c.user_id = 12 AND c.id = 4242424242424 AND c.status = 'LOCKED' AND c.order_id = 101;
INSERT INTO `archive_due` (`ended_at`, `id`, `user_id`) VALUES ('2026-01-01 00:00:00', 4242424242424, 12) ON DUPLICATE KEY UPDATE `ended_at` = VALUES(`ended_at`);
COMMIT;
