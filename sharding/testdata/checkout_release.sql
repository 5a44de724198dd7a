-- sharding gate capture of path checkout_release; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `coupon_settlement`.`id`, `coupon_settlement`.`created_at`, `coupon_settlement`.`updated_at`, `coupon_settlement`.`user_id`, `coupon_settlement`.`order_id`, `coupon_settlement`.`coupon_id`, `coupon_settlement`.`template_id`, `coupon_settlement`.`status`, `coupon_settlement`.`order_amount`, `coupon_settlement`.`discount_amount`, `coupon_settlement`.`payable_amount`, `coupon_settlement`.`lock_expires_at`, `coupon_settlement`.`live_coupon_id`, `coupon_settlement`.`live_slot`, `coupon_settlement`.`paid_at`, `coupon_settlement`.`refunded_at` FROM `coupon_settlement` WHERE (`coupon_settlement`.`user_id` = 13 AND `coupon_settlement`.`order_id` = 102) AND `coupon_settlement`.`coupon_id` = 4242424242424 LIMIT 2;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` = 13 AND `user_coupon`.`id` = 4242424242424 LIMIT 2;

-- tx
BEGIN;
UPDATE coupon_settlement SET status = 'CANCELED', updated_at = '2026-01-01 00:00:00', live_coupon_id = NULL, live_slot = NULL WHERE user_id = 13 AND id = 4242424242424 AND status = 'LOCKED' AND lock_expires_at = '2026-01-01 00:00:00';
UPDATE user_coupon SET status = 'UNUSED', updated_at = '2026-01-01 00:00:00', order_id = NULL, discount_amount = NULL, used_at = NULL WHERE user_id = 13 AND id = 4242424242424 AND status = 'LOCKED' AND order_id = 102;
COMMIT;
