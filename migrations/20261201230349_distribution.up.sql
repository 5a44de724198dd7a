-- modify "coupon_task" table
ALTER TABLE `coupon_task` ADD COLUMN `sheet_name` varchar(64) NULL, ADD COLUMN `resume_row` bigint NOT NULL DEFAULT 0, ADD COLUMN `failure_reason` varchar(255) NULL, ADD COLUMN `file_deleted` bool NOT NULL DEFAULT 0;
-- modify "coupon_task_failure" table
ALTER TABLE `coupon_task_failure` ADD COLUMN `code` varchar(32) NOT NULL DEFAULT '';
