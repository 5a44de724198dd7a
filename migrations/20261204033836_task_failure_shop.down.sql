-- reverse: modify "coupon_task_failure" table
ALTER TABLE `coupon_task_failure` DROP COLUMN `shop_number`;
