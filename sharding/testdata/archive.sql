-- sharding gate capture of path archive; written by sharding_capture_test.go, do not edit

-- autocommit
SELECT updated_at FROM user_coupon FORCE INDEX (usercoupon_status_updated_at) WHERE status = 'EXPIRED' AND updated_at < '2026-01-01 00:00:00' AND (updated_at > '2026-01-01 00:00:00' OR (updated_at = '2026-01-01 00:00:00' AND id > 4242424242424)) ORDER BY updated_at, id LIMIT 1;

-- autocommit
SELECT updated_at FROM user_coupon FORCE INDEX (usercoupon_status_updated_at) WHERE status = 'USED' AND updated_at < '2026-01-01 00:00:00' AND (updated_at > '2026-01-01 00:00:00' OR (updated_at = '2026-01-01 00:00:00' AND id > 4242424242424)) ORDER BY updated_at, id LIMIT 1;

-- tx
BEGIN;
SELECT id, user_id, template_id, valid_end_time, updated_at FROM user_coupon FORCE INDEX (usercoupon_status_updated_at) WHERE status = 'EXPIRED' AND updated_at < '2026-01-01 00:00:00' AND (updated_at > '2026-01-01 00:00:00' OR (updated_at = '2026-01-01 00:00:00' AND id > 0)) ORDER BY updated_at, id LIMIT 500 FOR UPDATE;
SELECT live_coupon_id FROM coupon_settlement WHERE (user_id, live_coupon_id) IN ((12,4242424242424),(13,4242424242424),(14,4242424242424),(16,4242424242424),(17,4242424242424),(18,4242424242424));
INSERT INTO user_coupon_archive (`id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `code`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, `archived_at`) SELECT `id`, `created_at`, `updated_at`, `user_id`, `template_id`, `redemption_id`, `code`, `receive_count`, `source`, `status`, `valid_start_time`, `valid_end_time`, `order_id`, `used_at`, `discount_amount`, `request_id`, '2026-01-01 00:00:00' FROM user_coupon WHERE id IN (4242424242424,4242424242424,4242424242424,4242424242424,4242424242424,4242424242424) AND user_id IN (12,13,14,16,17,18);
DELETE FROM user_coupon WHERE id IN (4242424242424,4242424242424,4242424242424,4242424242424,4242424242424,4242424242424) AND user_id IN (12,13,14,16,17,18);
COMMIT;

-- tx
BEGIN;
SELECT id, user_id, template_id, valid_end_time, updated_at FROM user_coupon FORCE INDEX (usercoupon_status_updated_at) WHERE status = 'USED' AND updated_at < '2026-01-01 00:00:00' AND (updated_at > '2026-01-01 00:00:00' OR (updated_at = '2026-01-01 00:00:00' AND id > 0)) ORDER BY updated_at, id LIMIT 500 FOR UPDATE;
SELECT live_coupon_id FROM coupon_settlement WHERE (user_id, live_coupon_id) IN ((11,4242424242424));
COMMIT;
