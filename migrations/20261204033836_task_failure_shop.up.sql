-- modify "coupon_task_failure" table
ALTER TABLE `coupon_task_failure` ADD COLUMN `shop_number` bigint NOT NULL DEFAULT 0;
