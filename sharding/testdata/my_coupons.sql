-- sharding gate capture of path my_coupons; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT COUNT(`user_coupon`.`id`) FROM `user_coupon` WHERE `user_coupon`.`user_id` = 11;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` = 11 AND `user_coupon`.`id` = 4242424242424 LIMIT 2;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` = 11 ORDER BY `user_coupon`.`id` DESC LIMIT 21;

-- tx
BEGIN;
SELECT COUNT(`user_coupon`.`id`) FROM `user_coupon` WHERE `user_coupon`.`user_id` = 11;
SELECT COUNT(`user_coupon_archive`.`id`) FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` = 11;
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` = 11 ORDER BY `user_coupon`.`id` DESC LIMIT 21;
SELECT `user_coupon_archive`.`id`, `user_coupon_archive`.`created_at`, `user_coupon_archive`.`updated_at`, `user_coupon_archive`.`user_id`, `user_coupon_archive`.`template_id`, `user_coupon_archive`.`redemption_id`, `user_coupon_archive`.`receive_count`, `user_coupon_archive`.`source`, `user_coupon_archive`.`status`, `user_coupon_archive`.`valid_start_time`, `user_coupon_archive`.`valid_end_time`, `user_coupon_archive`.`order_id`, `user_coupon_archive`.`used_at`, `user_coupon_archive`.`discount_amount`, `user_coupon_archive`.`request_id`, `user_coupon_archive`.`stock_batch_id`, `user_coupon_archive`.`archived_at` FROM `user_coupon_archive` WHERE `user_coupon_archive`.`user_id` = 11 ORDER BY `user_coupon_archive`.`id` DESC LIMIT 21;
ROLLBACK;
