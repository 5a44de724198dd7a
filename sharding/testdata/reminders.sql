-- sharding gate capture of path reminders; written by sharding_capture_test.go, do not edit

-- autocommit
INSERT INTO `coupon_reminder` (`created_at`, `updated_at`, `user_id`, `template_id`, `channel`, `minutes_before`, `remind_at`, `status`, `version`, `attempts`, `due_at`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 11, 4242424242424, 'APP', 30, '2026-01-01 00:00:00', 'PENDING', 1, 0, '2026-01-01 00:00:00', 4242424242424);

-- autocommit
INSERT INTO `coupon_reminder` (`created_at`, `updated_at`, `user_id`, `template_id`, `channel`, `minutes_before`, `remind_at`, `status`, `version`, `attempts`, `due_at`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 12, 4242424242424, 'APP', 30, '2026-01-01 00:00:00', 'PENDING', 1, 0, '2026-01-01 00:00:00', 4242424242424);

-- autocommit
INSERT INTO `coupon_reminder` (`created_at`, `updated_at`, `user_id`, `template_id`, `channel`, `minutes_before`, `remind_at`, `status`, `version`, `attempts`, `due_at`, `id`) VALUES ('2026-01-01 00:00:00', '2026-01-01 00:00:00', 13, 4242424242424, 'APP', 30, '2026-01-01 00:00:00', 'PENDING', 1, 0, '2026-01-01 00:00:00', 4242424242424);

-- autocommit
SELECT COUNT(`coupon_reminder`.`id`) FROM `coupon_reminder` WHERE `coupon_reminder`.`user_id` = 11;

-- autocommit
SELECT `coupon_reminder`.`id`, `coupon_reminder`.`created_at`, `coupon_reminder`.`updated_at`, `coupon_reminder`.`user_id`, `coupon_reminder`.`template_id`, `coupon_reminder`.`channel`, `coupon_reminder`.`minutes_before`, `coupon_reminder`.`remind_at`, `coupon_reminder`.`status`, `coupon_reminder`.`version`, `coupon_reminder`.`attempts`, `coupon_reminder`.`due_at`, `coupon_reminder`.`failure_reason`, `coupon_reminder`.`sent_at` FROM `coupon_reminder` WHERE (`coupon_reminder`.`user_id` = 13 AND `coupon_reminder`.`template_id` = 4242424242424) AND `coupon_reminder`.`channel` = 'APP' LIMIT 2;

-- autocommit
SELECT `coupon_reminder`.`id`, `coupon_reminder`.`created_at`, `coupon_reminder`.`updated_at`, `coupon_reminder`.`user_id`, `coupon_reminder`.`template_id`, `coupon_reminder`.`channel`, `coupon_reminder`.`minutes_before`, `coupon_reminder`.`remind_at`, `coupon_reminder`.`status`, `coupon_reminder`.`version`, `coupon_reminder`.`attempts`, `coupon_reminder`.`due_at`, `coupon_reminder`.`failure_reason`, `coupon_reminder`.`sent_at` FROM `coupon_reminder` WHERE `coupon_reminder`.`user_id` = 11 ORDER BY `coupon_reminder`.`id` DESC LIMIT 21;

-- autocommit
UPDATE `coupon_reminder` SET `updated_at` = '2026-01-01 00:00:00', `status` = 'CANCELED' WHERE ((`coupon_reminder`.`user_id` = 13 AND `coupon_reminder`.`template_id` = 4242424242424) AND `coupon_reminder`.`channel` = 'APP') AND `coupon_reminder`.`status` = 'PENDING';
