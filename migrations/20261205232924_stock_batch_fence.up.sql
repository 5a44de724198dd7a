-- create "stock_batch_fence" table
CREATE TABLE `stock_batch_fence` (`id` bigint NOT NULL AUTO_INCREMENT, `batch_id` bigint NOT NULL, `user_id` bigint NOT NULL, `state` enum('WRITTEN','FENCED') NOT NULL, `created_at` datetime(3) NOT NULL, PRIMARY KEY (`id`), UNIQUE INDEX `stockbatchfence_batch_id_user_id` (`batch_id`, `user_id`)) CHARSET utf8mb4 COLLATE utf8mb4_bin;
