-- reverse: modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` ADD INDEX `usercouponarchive_template_id_status_updated_at` (`template_id`, `status`, `updated_at`), ALGORITHM=INPLACE, LOCK=NONE;
-- reverse: modify "user_coupon" table
ALTER TABLE `user_coupon` ADD INDEX `usercoupon_template_id_status_updated_at` (`template_id`, `status`, `updated_at`), ALGORITHM=INPLACE, LOCK=NONE;
-- reverse: create "expired_ledger" table
DROP TABLE `expired_ledger`;
-- reverse: create "issued_ledger" table
DROP TABLE `issued_ledger`;
