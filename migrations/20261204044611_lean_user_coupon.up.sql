-- modify "user_coupon" table
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_user_id_status_valid_end_time`, ALGORITHM=INPLACE, LOCK=NONE;
