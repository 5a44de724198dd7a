-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` ADD INDEX `usercoupon_user_id_status_valid_end_time` (`user_id`, `status`, `valid_end_time`), ALGORITHM=INPLACE, LOCK=NONE;
