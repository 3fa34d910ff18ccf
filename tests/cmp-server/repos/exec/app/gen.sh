#!/bin/sh
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-script\n'
