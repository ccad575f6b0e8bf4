"""What the pages draw, one module per thing drawn; each reads jeval_core's typed objects."""
