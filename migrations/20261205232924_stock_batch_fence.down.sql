-- reverse: create "stock_batch_fence" table
DROP TABLE `stock_batch_fence`;
