-- sharding gate capture of path redemption_lookup; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `redemption_failure`.`id`, `redemption_failure`.`user_id`, `redemption_failure`.`template_id`, `redemption_failure`.`redemption_id`, `redemption_failure`.`reason`, `redemption_failure`.`duplicate_of`, `redemption_failure`.`created_at` FROM `redemption_failure` WHERE `redemption_failure`.`user_id` = 11 AND `redemption_failure`.`redemption_id` = 's' LIMIT 2;

-- autocommit
SELECT `user_coupon`.`id`, `user_coupon`.`created_at`, `user_coupon`.`updated_at`, `user_coupon`.`user_id`, `user_coupon`.`template_id`, `user_coupon`.`redemption_id`, `user_coupon`.`receive_count`, `user_coupon`.`source`, `user_coupon`.`status`, `user_coupon`.`valid_start_time`, `user_coupon`.`valid_end_time`, `user_coupon`.`order_id`, `user_coupon`.`used_at`, `user_coupon`.`discount_amount`, `user_coupon`.`request_id`, `user_coupon`.`stock_batch_id` FROM `user_coupon` WHERE `user_coupon`.`user_id` = 11 AND `user_coupon`.`redemption_id` = 's' LIMIT 2;
