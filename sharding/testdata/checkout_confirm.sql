-- sharding gate capture of path checkout_confirm; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `coupon_settlement`.`id`, `coupon_settlement`.`created_at`, `coupon_settlement`.`updated_at`, `coupon_settlement`.`user_id`, `coupon_settlement`.`order_id`, `coupon_settlement`.`coupon_id`, `coupon_settlement`.`template_id`, `coupon_settlement`.`status`, `coupon_settlement`.`order_amount`, `coupon_settlement`.`discount_amount`, `coupon_settlement`.`payable_amount`, `coupon_settlement`.`lock_expires_at`, `coupon_settlement`.`live_coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`paid_at`, `coupon_settlement`.`refunded_at` FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = 11 AND `coupon_settlement`.`order_id` = 100) AND `coupon_settlement`.`coupon_id` = 4242424242424 LIMIT 2;

-- autocommit
SELECT `coupon_settlement`.`id`, `coupon_settlement`.`created_at`, `coupon_settlement`.`updated_at`, `coupon_settlement`.`user_id`, `coupon_settlement`.`order_id`, `coupon_settlement`.`coupon_id`, `coupon_settlement`.`template_id`, `coupon_settlement`.`status`, `coupon_settlement`.`order_amount`, `coupon_settlement`.`discount_amount`, `coupon_settlement`.`payable_amount`, `coupon_settlement`.`lock_expires_at`, `coupon_settlement`.`live_coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`paid_at`, `coupon_settlement`.`refunded_at` FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = 12 AND `coupon_settlement`.`order_id` = 101) AND `coupon_settlement`.`coupon_id` = 4242424242424 LIMIT 2;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`user_id` FROM `user_coupon` WHERE `user_coupon`.`id` = 4242424242424 LIMIT 2;

-- tx
BEGIN;
UPDATE `coupon_settlement` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'PAID', `paid_at` = '2026-01-01 00:00:00' WHERE (((`coupon_settlement`.`user_id` = 11 AND `coupon_settlement`.`id` = 4242424242424) AND `coupon_settlement`.`status` = 'LOCKED') AND `coupon_settlement`.`lock_expires_at` > '2026-01-01 00:00:00') AND `coupon_settlement`.`order_amount` = '100';
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'USED', `used_at` = '2026-01-01 00:00:00' WHERE ((`user_coupon`.`user_id` = 11 AND `user_coupon`.`id` = 4242424242424) AND `user_coupon`.`status` = 'LOCKED') AND `user_coupon`.`order_id` = 100;
COMMIT;

-- tx
BEGIN;
UPDATE `coupon_settlement` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'PAID', `paid_at` = '2026-01-01 00:00:00' WHERE (((`coupon_settlement`.`user_id` = 12 AND `coupon_settlement`.`id` = 4242424242424) AND `coupon_settlement`.`status` = 'LOCKED') AND `coupon_settlement`.`lock_expires_at` > '2026-01-01 00:00:00') AND `coupon_settlement`.`order_amount` = '100';
UPDATE `user_coupon` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'USED', `used_at` = '2026-01-01 00:00:00' WHERE ((`user_coupon`.`user_id` = 12 AND `user_coupon`.`id` = 4242424242424) AND `user_coupon`.`status` = 'LOCKED') AND `user_coupon`.`order_id` = 101;
COMMIT;
