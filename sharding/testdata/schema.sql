-- the tables of a migrated database (SHOW CREATE TABLE); written by sharding_capture_test.go

CREATE TABLE `archive_due` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `user_id` bigint(20) NOT NULL,
  `ended_at` datetime(3) NOT NULL,
  PRIMARY KEY (`id`),
  KEY `archivedue_ended_at` (`ended_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `coupon_reminder` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `created_at` datetime(3) NOT NULL,
  `updated_at` datetime(3) NOT NULL,
  `user_id` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `channel` enum('APP','EMAIL') NOT NULL,
  `minutes_before` bigint(20) NOT NULL,
  `remind_at` datetime(3) NOT NULL,
  `status` enum('PENDING','SENT','FAILED','CANCELED','SKIPPED') NOT NULL DEFAULT 'PENDING',
  `version` bigint(20) NOT NULL DEFAULT 1,
  `attempts` bigint(20) NOT NULL DEFAULT 0,
  `due_at` datetime(3) NOT NULL,
  `failure_reason` varchar(255) DEFAULT NULL,
  `sent_at` datetime(3) DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `couponreminder_user_id_template_id_channel` (`user_id`,`template_id`,`channel`),
  KEY `couponreminder_status_due_at` (`status`,`due_at`),
  KEY `couponreminder_template_id_status_remind_at` (`template_id`,`status`,`remind_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `coupon_settlement` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `created_at` datetime(3) NOT NULL,
  `updated_at` datetime(3) NOT NULL,
  `user_id` bigint(20) NOT NULL,
  `order_id` bigint(20) NOT NULL,
  `coupon_id` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `status` enum('LOCKED','PAID','CANCELED','REFUNDED') NOT NULL DEFAULT 'LOCKED',
  `order_amount` decimal(12,2) NOT NULL,
  `discount_amount` decimal(12,2) NOT NULL,
  `payable_amount` decimal(12,2) NOT NULL,
  `lock_expires_at` datetime(3) DEFAULT NULL,
  `live_coupon_id` bigint(20) DEFAULT NULL,
  `live_slot` varchar(24) DEFAULT NULL,
  `paid_at` datetime(3) DEFAULT NULL,
  `refunded_at` datetime(3) DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `couponsettlement_user_id_order_id_coupon_id` (`user_id`,`order_id`,`coupon_id`),
  UNIQUE KEY `couponsettlement_user_id_live_coupon_id` (`user_id`,`live_coupon_id`),
  UNIQUE KEY `couponsettlement_user_id_order_id_live_slot` (`user_id`,`order_id`,`live_slot`),
  KEY `couponsettlement_user_id_coupon_id_status` (`user_id`,`coupon_id`,`status`),
  KEY `couponsettlement_status_lock_expires_at` (`status`,`lock_expires_at`),
  KEY `couponsettlement_template_id_paid_at` (`template_id`,`paid_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `coupon_task` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `created_at` datetime(3) NOT NULL,
  `updated_at` datetime(3) NOT NULL,
  `shop_number` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `name` varchar(128) NOT NULL,
  `file_path` varchar(512) NOT NULL,
  `file_name` varchar(255) NOT NULL,
  `send_type` enum('IMMEDIATE','SCHEDULED') NOT NULL,
  `send_time` datetime(3) DEFAULT NULL,
  `send_num` bigint(20) DEFAULT NULL,
  `processed_rows` bigint(20) NOT NULL DEFAULT 0,
  `success_count` bigint(20) NOT NULL DEFAULT 0,
  `fail_count` bigint(20) NOT NULL DEFAULT 0,
  `status` enum('PENDING','IN_PROGRESS','SUCCESS','FAILED','CANCELED') NOT NULL DEFAULT 'PENDING',
  `failure_report_path` varchar(512) DEFAULT NULL,
  `operator_id` bigint(20) NOT NULL,
  `completed_at` datetime(3) DEFAULT NULL,
  `sheet_name` varchar(64) DEFAULT NULL,
  `resume_row` bigint(20) NOT NULL DEFAULT 0,
  `failure_reason` varchar(255) DEFAULT NULL,
  `file_deleted` tinyint(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  KEY `coupontask_shop_number_id` (`shop_number`,`id`),
  KEY `coupontask_status_send_time` (`status`,`send_time`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `coupon_task_failure` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `task_id` bigint(20) NOT NULL,
  `row_num` bigint(20) NOT NULL,
  `user_id` varchar(64) DEFAULT NULL,
  `reason` varchar(255) NOT NULL,
  `created_at` datetime(3) NOT NULL,
  `code` varchar(32) NOT NULL DEFAULT '',
  `shop_number` bigint(20) NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  UNIQUE KEY `coupontaskfailure_task_id_row_num` (`task_id`,`row_num`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `coupon_template` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `created_at` datetime(3) NOT NULL,
  `updated_at` datetime(3) NOT NULL,
  `shop_number` bigint(20) NOT NULL,
  `name` varchar(64) NOT NULL,
  `source` enum('SHOP','PLATFORM') NOT NULL,
  `target` enum('PRODUCT','SHOP_WIDE') NOT NULL,
  `goods` varchar(255) DEFAULT NULL,
  `type` enum('FIXED_OFF','THRESHOLD_OFF','PERCENT_OFF') NOT NULL,
  `valid_start_time` datetime(3) NOT NULL,
  `valid_end_time` datetime(3) NOT NULL,
  `total_stock` bigint(20) NOT NULL,
  `stock` bigint(20) NOT NULL,
  `receive_rule` longtext NOT NULL CHECK (json_valid(`receive_rule`)),
  `consume_rule` longtext NOT NULL CHECK (json_valid(`consume_rule`)),
  `refund_policy` enum('RETURN','FORFEIT') NOT NULL DEFAULT 'RETURN',
  `status` enum('ACTIVE','ENDED') NOT NULL DEFAULT 'ACTIVE',
  `created_by` bigint(20) NOT NULL,
  `version` bigint(20) NOT NULL DEFAULT 0,
  `issued` bigint(20) NOT NULL DEFAULT 0,
  `batch_seq` bigint(20) NOT NULL DEFAULT 0,
  `stock_shards` bigint(20) NOT NULL DEFAULT 1,
  PRIMARY KEY (`id`),
  KEY `coupontemplate_shop_number_id` (`shop_number`,`id`),
  KEY `coupontemplate_shop_number_status_valid_end_time` (`shop_number`,`status`,`valid_end_time`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `coupon_template_log` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `shop_number` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `actor_id` bigint(20) NOT NULL,
  `actor_role` varchar(16) NOT NULL,
  `action` varchar(32) NOT NULL,
  `before` longtext DEFAULT NULL CHECK (json_valid(`before`)),
  `after` longtext DEFAULT NULL CHECK (json_valid(`after`)),
  `created_at` datetime(3) NOT NULL,
  PRIMARY KEY (`id`),
  KEY `coupontemplatelog_shop_number_template_id_id` (`shop_number`,`template_id`,`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `expired_ledger` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `user_id` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `bucket` datetime NOT NULL,
  `n` bigint(20) NOT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `expiredledger_template_id_bucket_user_id` (`template_id`,`bucket`,`user_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `issued_ledger` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `shop_number` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `bucket` datetime NOT NULL,
  `source` enum('CLAIM','DISTRIBUTION') NOT NULL,
  `n` bigint(20) NOT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `issuedledger_template_id_bucket_source` (`template_id`,`bucket`,`source`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `redemption_failure` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `user_id` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `redemption_id` varchar(64) NOT NULL,
  `reason` varchar(255) NOT NULL,
  `created_at` datetime(3) NOT NULL,
  `duplicate_of` varchar(64) DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `redemptionfailure_user_id_redemption_id` (`user_id`,`redemption_id`),
  KEY `redemptionfailure_template_id` (`template_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `stock_batch` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `shop_number` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `seq` bigint(20) NOT NULL,
  `source` enum('CLAIM','DISTRIBUTION') NOT NULL,
  `task_id` bigint(20) DEFAULT NULL,
  `task_start` bigint(20) DEFAULT NULL,
  `reserved` bigint(20) NOT NULL,
  `used` bigint(20) NOT NULL DEFAULT 0,
  `state` enum('OPEN','SETTLED') NOT NULL DEFAULT 'OPEN',
  `items` mediumtext NOT NULL,
  `created_at` datetime(3) NOT NULL,
  `settled_at` datetime(3) DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `stockbatch_state_created_at` (`state`,`created_at`),
  KEY `stockbatch_task_id_task_start` (`task_id`,`task_start`),
  KEY `stockbatch_template_id_seq` (`template_id`,`seq`),
  KEY `stockbatch_template_id_state` (`template_id`,`state`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `stock_batch_fence` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `batch_id` bigint(20) NOT NULL,
  `user_id` bigint(20) NOT NULL,
  `state` enum('WRITTEN','FENCED') NOT NULL,
  `created_at` datetime(3) NOT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `stockbatchfence_batch_id_user_id` (`batch_id`,`user_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `template_daily_stats` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `created_at` datetime(3) NOT NULL,
  `updated_at` datetime(3) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `shop_number` bigint(20) NOT NULL,
  `day` date NOT NULL,
  `issued` bigint(20) NOT NULL DEFAULT 0,
  `used` bigint(20) NOT NULL DEFAULT 0,
  `expired` bigint(20) NOT NULL DEFAULT 0,
  `discount_total` decimal(12,2) NOT NULL,
  `issued_distribution` bigint(20) NOT NULL DEFAULT 0,
  `refunded` bigint(20) NOT NULL DEFAULT 0,
  `refunded_discount` decimal(12,2) NOT NULL,
  `sealed` tinyint(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  UNIQUE KEY `templatedailystats_template_id_day` (`template_id`,`day`),
  KEY `templatedailystats_sealed_day` (`sealed`,`day`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `user_coupon` (
  `id` bigint(20) NOT NULL,
  `created_at` datetime(3) NOT NULL,
  `updated_at` datetime(3) NOT NULL,
  `user_id` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `redemption_id` varchar(64) NOT NULL,
  `receive_count` bigint(20) NOT NULL,
  `source` enum('CLAIM','DISTRIBUTION') NOT NULL,
  `status` enum('UNUSED','LOCKED','USED','EXPIRED','REVOKED') NOT NULL DEFAULT 'UNUSED',
  `valid_start_time` datetime(3) NOT NULL,
  `valid_end_time` datetime(3) NOT NULL,
  `order_id` bigint(20) DEFAULT NULL,
  `used_at` datetime(3) DEFAULT NULL,
  `discount_amount` decimal(12,2) DEFAULT NULL,
  `request_id` varchar(64) DEFAULT NULL,
  `stock_batch_id` bigint(20) DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `usercoupon_redemption_id` (`redemption_id`),
  UNIQUE KEY `usercoupon_user_id_template_id_receive_count` (`user_id`,`template_id`,`receive_count`),
  UNIQUE KEY `usercoupon_user_id_template_id_request_id` (`user_id`,`template_id`,`request_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `user_coupon_archive` (
  `id` bigint(20) NOT NULL,
  `created_at` datetime(3) NOT NULL,
  `updated_at` datetime(3) NOT NULL,
  `user_id` bigint(20) NOT NULL,
  `template_id` bigint(20) NOT NULL,
  `redemption_id` varchar(64) NOT NULL,
  `receive_count` bigint(20) NOT NULL,
  `source` enum('CLAIM','DISTRIBUTION') NOT NULL,
  `status` enum('UNUSED','LOCKED','USED','EXPIRED','REVOKED') NOT NULL DEFAULT 'UNUSED',
  `valid_start_time` datetime(3) NOT NULL,
  `valid_end_time` datetime(3) NOT NULL,
  `order_id` bigint(20) DEFAULT NULL,
  `used_at` datetime(3) DEFAULT NULL,
  `discount_amount` decimal(12,2) DEFAULT NULL,
  `archived_at` datetime(3) NOT NULL,
  `request_id` varchar(64) DEFAULT NULL,
  `stock_batch_id` bigint(20) DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `usercouponarchive_user_id_template_id` (`user_id`,`template_id`),
  KEY `usercouponarchive_user_id` (`user_id`),
  KEY `usercouponarchive_template_id_user_id` (`template_id`,`user_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

