-- reverse: create "user_coupon_archive" table
DROP TABLE `user_coupon_archive`;
-- reverse: create "user_coupon" table
DROP TABLE `user_coupon`;
-- reverse: create "template_daily_stats" table
DROP TABLE `template_daily_stats`;
-- reverse: create "coupon_template_log" table
DROP TABLE `coupon_template_log`;
-- reverse: create "coupon_template" table
DROP TABLE `coupon_template`;
-- reverse: create "coupon_task_failure" table
DROP TABLE `coupon_task_failure`;
-- reverse: create "coupon_task" table
DROP TABLE `coupon_task`;
-- reverse: create "coupon_settlement" table
DROP TABLE `coupon_settlement`;
-- reverse: create "coupon_reminder" table
DROP TABLE `coupon_reminder`;
