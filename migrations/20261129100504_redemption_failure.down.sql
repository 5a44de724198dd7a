-- reverse: create "redemption_failure" table
DROP TABLE `redemption_failure`;
