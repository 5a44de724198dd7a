-- sharding gate capture of path reminder_delivery; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT `coupon_reminder`.`id`, `coupon_reminder`.`created_at`, `coupon_reminder`.`updated_at`, `coupon_reminder`.`user_id`, `coupon_reminder`.`template_id`, `coupon_reminder`.`channel`, `coupon_reminder`.`minutes_before`, `coupon_reminder`.`remind_at`, `coupon_reminder`.`status`, `coupon_reminder`.`version`, `coupon_reminder`.`attempts`, `coupon_reminder`.`due_at`, `coupon_reminder`.`failure_reason`, `coupon_reminder`.`sent_at` FROM `coupon_reminder` WHERE (((`coupon_reminder`.`template_id` = 4242424242424 AND `coupon_reminder`.`status` = 'PENDING') AND `coupon_reminder`.`remind_at` >= '2026-01-01 00:00:00') AND `coupon_reminder`.`remind_at` < '2026-01-01 00:00:00') AND `coupon_reminder`.`due_at` <= '2026-01-01 00:00:00' ORDER BY `coupon_reminder`.`remind_at` ASC, `coupon_reminder`.`id` ASC LIMIT 500;

-- autocommit
SELECT `coupon_reminder`.`id`, `coupon_reminder`.`due_at` FROM `coupon_reminder` WHERE ((`coupon_reminder`.`template_id` = 4242424242424 AND `coupon_reminder`.`status` = 'PENDING') AND `coupon_reminder`.`remind_at` >= '2026-01-01 00:00:00') AND `coupon_reminder`.`remind_at` < '2026-01-01 00:00:00' ORDER BY `coupon_reminder`.`due_at` ASC LIMIT 1;

-- autocommit
SELECT `coupon_reminder`.`id`, `coupon_reminder`.`template_id`, `coupon_reminder`.`remind_at` FROM `coupon_reminder` WHERE `coupon_reminder`.`status` = 'PENDING' AND `coupon_reminder`.`due_at` <= '2026-01-01 00:00:00' ORDER BY `coupon_reminder`.`due_at` ASC LIMIT 10000;

-- autocommit
UPDATE `coupon_reminder` SET `failure_reason` = NULL, `updated_at` = '2026-01-01 00:00:00', `status` = 'SENT', `sent_at` = '2026-01-01 00:00:00' WHERE ((`coupon_reminder`.`user_id` IN (11) AND `coupon_reminder`.`id` IN (4242424242424)) AND `coupon_reminder`.`version` = 1) AND `coupon_reminder`.`status` = 'PENDING';

-- autocommit
UPDATE `coupon_reminder` SET `failure_reason` = NULL, `updated_at` = '2026-01-01 00:00:00', `status` = 'SENT', `sent_at` = '2026-01-01 00:00:00' WHERE ((`coupon_reminder`.`user_id` IN (12) AND `coupon_reminder`.`id` IN (4242424242424)) AND `coupon_reminder`.`version` = 1) AND `coupon_reminder`.`status` = 'PENDING';
