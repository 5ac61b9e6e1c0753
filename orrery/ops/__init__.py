"""Operations: status, repair and trim, the group watchdog, the failover drill."""
