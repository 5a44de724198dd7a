-- reverse: modify "coupon_settlement" table
ALTER TABLE `coupon_settlement` ADD INDEX `couponsettlement_updated_at` (`updated_at`), ADD INDEX `couponsettlement_template_id_refunded_at` (`template_id`, `refunded_at`), LOCK=NONE;
