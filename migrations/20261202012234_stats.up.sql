-- modify "coupon_settlement" table
ALTER TABLE `coupon_settlement` ADD INDEX `couponsettlement_template_id_paid_at` (`template_id`, `paid_at`), ADD INDEX `couponsettlement_template_id_refunded_at` (`template_id`, `refunded_at`);
-- modify "template_daily_stats" table
ALTER TABLE `template_daily_stats` ADD COLUMN `issued_distribution` bigint NOT NULL DEFAULT 0, ADD COLUMN `refunded` bigint NOT NULL DEFAULT 0, ADD COLUMN `refunded_discount` decimal(12,2) NOT NULL, ADD COLUMN `sealed` bool NOT NULL DEFAULT 0, ADD INDEX `templatedailystats_sealed_day` (`sealed`, `day`);
-- modify "user_coupon" table
ALTER TABLE `user_coupon` ADD INDEX `usercoupon_template_id_created_at` (`template_id`, `created_at`), ADD INDEX `usercoupon_template_id_status_updated_at` (`template_id`, `status`, `updated_at`);
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` ADD INDEX `usercouponarchive_template_id_created_at` (`template_id`, `created_at`), ADD INDEX `usercouponarchive_template_id_status_updated_at` (`template_id`, `status`, `updated_at`);
