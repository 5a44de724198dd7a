-- modify "coupon_template" table
ALTER TABLE `coupon_template` ADD COLUMN `stock_shards` bigint NOT NULL DEFAULT 1;
