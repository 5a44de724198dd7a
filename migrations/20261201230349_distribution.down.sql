-- reverse: modify "coupon_task_failure" table
ALTER TABLE `coupon_task_failure` DROP COLUMN `code`;
-- reverse: modify "coupon_task" table
ALTER TABLE `coupon_task` DROP COLUMN `file_deleted`, DROP COLUMN `failure_reason`, DROP COLUMN `resume_row`, DROP COLUMN `sheet_name`;
