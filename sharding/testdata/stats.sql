-- sharding gate capture of path stats; written by sharding_capture_test.go, do not edit

-- autocommit
INSERT INTO template_daily_stats
(id, template_id, shop_number, day, issued, issued_distribution, used, discount_total, refunded, refunded_discount, expired, sealed, created_at, updated_at)
VALUES (4242424242424, 4242424242424, 1001, 's', 3, 0, 0, '0', 0, '0', 0, 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00') ON DUPLICATE KEY UPDATE issued = IF(sealed, issued, VALUES(issued)), issued_distribution = IF(sealed, issued_distribution, VALUES(issued_distribution)), used = IF(sealed, used, VALUES(used)), discount_total = IF(sealed, discount_total, VALUES(discount_total)), refunded = IF(sealed, refunded, VALUES(refunded)), refunded_discount = IF(sealed, refunded_discount, VALUES(refunded_discount)), expired = IF(sealed, expired, VALUES(expired)), updated_at = IF(sealed, updated_at, VALUES(updated_at));

-- autocommit
INSERT INTO template_daily_stats
(id, template_id, shop_number, day, issued, issued_distribution, used, discount_total, refunded, refunded_discount, expired, sealed, created_at, updated_at)
VALUES (4242424242424, 4242424242424, 1001, 's', 4, 0, 0, '0', 0, '0', 0, 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00') ON DUPLICATE KEY UPDATE issued = IF(sealed, issued, VALUES(issued)), issued_distribution = IF(sealed, issued_distribution, VALUES(issued_distribution)), used = IF(sealed, used, VALUES(used)), discount_total = IF(sealed, discount_total, VALUES(discount_total)), refunded = IF(sealed, refunded, VALUES(refunded)), refunded_discount = IF(sealed, refunded_discount, VALUES(refunded_discount)), expired = IF(sealed, expired, VALUES(expired)), updated_at = IF(sealed, updated_at, VALUES(updated_at));

-- autocommit
INSERT INTO template_daily_stats
(id, template_id, shop_number, day, issued, issued_distribution, used, discount_total, refunded, refunded_discount, expired, sealed, created_at, updated_at)
VALUES (4242424242424, 4242424242424, 1001, 's', 5, 0, 0, '0', 0, '0', 0, 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00') ON DUPLICATE KEY UPDATE issued = IF(sealed, issued, VALUES(issued)), issued_distribution = IF(sealed, issued_distribution, VALUES(issued_distribution)), used = IF(sealed, used, VALUES(used)), discount_total = IF(sealed, discount_total, VALUES(discount_total)), refunded = IF(sealed, refunded, VALUES(refunded)), refunded_discount = IF(sealed, refunded_discount, VALUES(refunded_discount)), expired = IF(sealed, expired, VALUES(expired)), updated_at = IF(sealed, updated_at, VALUES(updated_at));

-- autocommit
INSERT INTO template_daily_stats
(id, template_id, shop_number, day, issued, issued_distribution, used, discount_total, refunded, refunded_discount, expired, sealed, created_at, updated_at)
VALUES (4242424242424, 4242424242424, 1001, 's', 6, 0, 0, '0', 0, '0', 0, 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00') ON DUPLICATE KEY UPDATE issued = IF(sealed, issued, VALUES(issued)), issued_distribution = IF(sealed, issued_distribution, VALUES(issued_distribution)), used = IF(sealed, used, VALUES(used)), discount_total = IF(sealed, discount_total, VALUES(discount_total)), refunded = IF(sealed, refunded, VALUES(refunded)), refunded_discount = IF(sealed, refunded_discount, VALUES(refunded_discount)), expired = IF(sealed, expired, VALUES(expired)), updated_at = IF(sealed, updated_at, VALUES(updated_at));

-- autocommit
INSERT INTO template_daily_stats
(id, template_id, shop_number, day, issued, issued_distribution, used, discount_total, refunded, refunded_discount, expired, sealed, created_at, updated_at)
VALUES (4242424242424, 4242424242424, 1001, 's', 8, 0, 1, '5', 1, '5', 6, 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00') ON DUPLICATE KEY UPDATE issued = IF(sealed, issued, VALUES(issued)), issued_distribution = IF(sealed, issued_distribution, VALUES(issued_distribution)), used = IF(sealed, used, VALUES(used)), discount_total = IF(sealed, discount_total, VALUES(discount_total)), refunded = IF(sealed, refunded, VALUES(refunded)), refunded_discount = IF(sealed, refunded_discount, VALUES(refunded_discount)), expired = IF(sealed, expired, VALUES(expired)), updated_at = IF(sealed, updated_at, VALUES(updated_at));

-- autocommit
INSERT INTO template_daily_stats
(id, template_id, shop_number, day, issued, issued_distribution, used, discount_total, refunded, refunded_discount, expired, sealed, created_at, updated_at)
VALUES (4242424242424, 4242424242424, 1001, 's', 9, 9, 0, '0', 0, '0', 0, 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00') ON DUPLICATE KEY UPDATE issued = IF(sealed, issued, VALUES(issued)), issued_distribution = IF(sealed, issued_distribution, VALUES(issued_distribution)), used = IF(sealed, used, VALUES(used)), discount_total = IF(sealed, discount_total, VALUES(discount_total)), refunded = IF(sealed, refunded, VALUES(refunded)), refunded_discount = IF(sealed, refunded_discount, VALUES(refunded_discount)), expired = IF(sealed, expired, VALUES(expired)), updated_at = IF(sealed, updated_at, VALUES(updated_at));

-- autocommit
SELECT COALESCE(SUM(n), 0) FROM expired_ledger WHERE template_id = 4242424242424 AND bucket >= '2026-01-01 00:00:00' AND bucket < '2026-01-01 00:00:00';

-- autocommit
SELECT COUNT(*) - COUNT(refunded_at), COALESCE(SUM(IF(refunded_at IS NULL, discount_amount, 0)), 0),
       COUNT(refunded_at), COALESCE(SUM(IF(refunded_at IS NULL, 0, discount_amount)), 0)
FROM coupon_settlement WHERE template_id = 4242424242424 AND paid_at >= '2026-01-01 00:00:00' AND paid_at < '2026-01-01 00:00:00';

-- autocommit
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` = 4242424242424 LIMIT 2;

-- autocommit
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` IN (4242424242424);

-- autocommit
SELECT `coupon_template`.`id`, `coupon_template`.`created_at`, `coupon_template`.`updated_at`, `coupon_template`.`shop_number`, `coupon_template`.`name`, `coupon_template`.`source`, `coupon_template`.`target`, `coupon_template`.`goods`, `coupon_template`.`type`, `coupon_template`.`valid_start_time`, `coupon_template`.`valid_end_time`, `coupon_template`.`total_stock`, `coupon_template`.`stock`, `coupon_template`.`issued`, `coupon_template`.`batch_seq`, `coupon_template`.`receive_rule`, `coupon_template`.`consume_rule`, `coupon_template`.`refund_policy`, `coupon_template`.`status`, `coupon_template`.`created_by`, `coupon_template`.`version`, `coupon_template`.`stock_shards` FROM `coupon_template` WHERE `coupon_template`.`id` IN (4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424) ORDER BY `coupon_template`.`id`;

-- autocommit
SELECT `coupon_template`.`id`, `coupon_template`.`shop_number` FROM `coupon_template` WHERE `coupon_template`.`id` IN (4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424);

-- autocommit
SELECT `template_daily_stats`.`id` FROM `template_daily_stats` LIMIT 1;

-- autocommit
SELECT `template_daily_stats`.`id`, `template_daily_stats`.`created_at`, `template_daily_stats`.`updated_at`, `template_daily_stats`.`template_id`, `template_daily_stats`.`shop_number`, `template_daily_stats`.`day`, `template_daily_stats`.`issued`, `template_daily_stats`.`used`, `template_daily_stats`.`expired`, `template_daily_stats`.`discount_total`, `template_daily_stats`.`issued_distribution`, `template_daily_stats`.`refunded`, `template_daily_stats`.`refunded_discount`, `template_daily_stats`.`sealed` FROM `template_daily_stats` WHERE (`template_daily_stats`.`template_id` IN (4242424242424) AND `template_daily_stats`.`day` >= '2026-01-01 00:00:00') AND `template_daily_stats`.`day` <= '2026-01-01 00:00:00';

-- autocommit
SELECT `template_daily_stats`.`id`, `template_daily_stats`.`created_at`, `template_daily_stats`.`updated_at`, `template_daily_stats`.`template_id`, `template_daily_stats`.`shop_number`, `template_daily_stats`.`day`, `template_daily_stats`.`issued`, `template_daily_stats`.`used`, `template_daily_stats`.`expired`, `template_daily_stats`.`discount_total`, `template_daily_stats`.`issued_distribution`, `template_daily_stats`.`refunded`, `template_daily_stats`.`refunded_discount`, `template_daily_stats`.`sealed` FROM `template_daily_stats` WHERE (`template_daily_stats`.`template_id` IN (4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424, 4242424242424) AND `template_daily_stats`.`day` >= '2026-01-01 00:00:00') AND `template_daily_stats`.`day` <= '2026-01-01 00:00:00';

-- autocommit
SELECT `template_daily_stats`.`id`, `template_daily_stats`.`template_id`, `template_daily_stats`.`shop_number` FROM `template_daily_stats` WHERE `template_daily_stats`.`day` = '2026-01-01 00:00:00' AND NOT `template_daily_stats`.`sealed`;

-- autocommit
SELECT source, SUM(n) FROM issued_ledger WHERE shop_number = 1001 AND template_id = 4242424242424 AND bucket >= '2026-01-01 00:00:00' AND bucket < '2026-01-01 00:00:00' GROUP BY source;

-- tx
BEGIN;
SELECT id, created_at FROM coupon_template WHERE shop_number = 1001 AND source = 'SHOP' ORDER BY id;
SELECT CAST(day AS CHAR), SUM(issued), SUM(issued_distribution), SUM(used), SUM(discount_total), SUM(refunded),
SUM(refunded_discount), SUM(expired) FROM template_daily_stats
WHERE shop_number = 1001 AND template_id IN (SELECT id FROM coupon_template WHERE shop_number = 1001 AND source = 'SHOP') AND day >= '2026-01-01 00:00:00' AND day <= '2026-01-01 00:00:00' GROUP BY day;
SELECT template_id, SUM(issued), SUM(issued_distribution), SUM(used), SUM(discount_total), SUM(refunded),
SUM(refunded_discount), SUM(expired) FROM template_daily_stats
WHERE shop_number = 1001 AND template_id IN (SELECT id FROM coupon_template WHERE shop_number = 1001 AND source = 'SHOP') AND day >= '2026-01-01 00:00:00' AND day <= '2026-01-01 00:00:00' GROUP BY template_id;
SELECT template_id, CAST(day AS CHAR), issued, issued_distribution, used, discount_total, refunded,
refunded_discount, expired, sealed FROM template_daily_stats
WHERE shop_number = 1001 AND template_id IN (SELECT id FROM coupon_template WHERE shop_number = 1001 AND source = 'SHOP') AND day >= '2026-01-01 00:00:00' AND day <= '2026-01-01 00:00:00';
COMMIT;
