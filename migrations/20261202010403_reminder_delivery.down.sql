-- reverse: modify "coupon_reminder" table
ALTER TABLE `coupon_reminder` DROP INDEX `couponreminder_template_id_status_remind_at`, DROP INDEX `couponreminder_status_due_at`, DROP COLUMN `sent_at`, DROP COLUMN `failure_reason`, DROP COLUMN `due_at`, DROP COLUMN `attempts`, DROP COLUMN `version`, MODIFY COLUMN `status` enum('PENDING','SENT','CANCELED') NOT NULL DEFAULT 'PENDING';
