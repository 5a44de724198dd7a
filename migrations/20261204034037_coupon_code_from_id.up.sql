-- The coupon code is derived from the id (coupon/code, COUPON_CODE_KEY): the column and its unique
-- index go. Online: the index drop first, so the column drop is instant (MariaDB 10.4+, MySQL
-- 8.0.29+); LOCK=NONE refuses rather than block writers where a server cannot do it online.
-- modify "user_coupon" table
ALTER TABLE `user_coupon` DROP INDEX `usercoupon_code`, LOCK=NONE;
ALTER TABLE `user_coupon` DROP COLUMN `code`, LOCK=NONE;
-- modify "user_coupon_archive" table
ALTER TABLE `user_coupon_archive` DROP COLUMN `code`, LOCK=NONE;
