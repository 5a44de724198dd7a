-- reverse: modify "coupon_template" table
ALTER TABLE `coupon_template` DROP COLUMN `stock_shards`;
