-- The coupons' id loses AUTO_INCREMENT (coupond assigns snowflake ids): T2 loads a batch's coupons
-- with LOAD DATA, which under innodb_autoinc_lock_mode 1 would hold the table's AUTO-INC lock for
-- the whole statement and stall every claim's INSERT meanwhile. The archive keeps the same shape.
-- Instant on MariaDB; LOCK=NONE refuses rather than block writers where a server cannot do it online.
-- modify "user_coupon" table
ALTER TABLE `user_coupon` MODIFY COLUMN `id` bigint NOT NULL, LOCK=NONE;
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` MODIFY COLUMN `id` bigint NOT NULL, LOCK=NONE;
